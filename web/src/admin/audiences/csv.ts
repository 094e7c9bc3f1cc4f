import { ApiError } from '../../api/client';

/**
 * Reads an upload of users: one per line, `identifier` or `identifier,identifier_type`, with an
 * optional header line naming those columns. Rows without a type take the one chosen on the form.
 * The API validates every identifier; this only splits the file.
 */
export interface CsvEntry {
  identifier: string;
  identifier_type: string;
  /** 1-based line in the file, to name in errors. */
  line: number;
}

function cells(line: string): string[] {
  return line.split(',').map((cell) =>
    cell
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .trim(),
  );
}

export function parseEntriesCsv(text: string, defaultType: string): CsvEntry[] {
  const lines = text.split(/\r?\n/);
  const first = cells(lines[0] ?? '');
  const hasHeader = first[0]?.toLowerCase() === 'identifier';
  const typeColumn = hasHeader ? first.findIndex((cell) => cell.toLowerCase() === 'identifier_type') : 1;
  const entries: CsvEntry[] = [];
  lines.forEach((line, index) => {
    if (index === 0 && hasHeader) return;
    if (!line.trim()) return;
    const row = cells(line);
    const identifier = row[0] ?? '';
    const type = typeColumn >= 0 ? row[typeColumn] : undefined;
    entries.push({ identifier, identifier_type: type || defaultType, line: index + 1 });
  });
  return entries;
}

export function chunk<T>(items: T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

/** `entries[3].identifier` of a batch -> the file's line of that entry. */
export function lineOfViolation(field: string, batch: CsvEntry[]): number | undefined {
  const match = /^entries\[(\d+)\]/.exec(field);
  return match ? batch[Number(match[1])]?.line : undefined;
}

/** A batch's refusal with each `entries[i]` made the file's line (`entries[line - 1]`), so its "Row N" is the file's line N. */
export function refusalByLine(error: unknown, batch: CsvEntry[]): unknown {
  if (!(error instanceof ApiError)) return error;
  const details = error.details.map((detail) => {
    const line = lineOfViolation(detail.field, batch);
    return line === undefined ? detail : { ...detail, field: detail.field.replace(/^entries\[\d+\]/, `entries[${line - 1}]`) };
  });
  return new ApiError(error.status, error.code, error.message, details);
}
