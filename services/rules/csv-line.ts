/** A field as the CSV writers are given it: null and undefined are written empty. */
export type CsvField = string | number | boolean | null | undefined;

/**
 * One CSV record as RFC 4180 writes it (CRLF-ended; a field with a comma, quote, line break or edge space quoted,
 * quotes doubled): the CLI's exports and the admin dashboard's write through it, so a file from either reads the same.
 */
export function csvLine(fields: readonly CsvField[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

function csvField(value: CsvField): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
