/**
 * CSV as RFC 4180 writes it: fields separated by commas, a field in double quotes may hold commas,
 * line breaks and doubled quotes (""). Records are read from numbered lines, so each problem names
 * the line a person finds it on.
 */
export type CsvRecord = { line: number; fields: string[]; problem?: undefined } | { line: number; fields?: undefined; problem: string };

/** Records of the lines, in order; a record whose quoted field spans lines is numbered by its first line. */
export async function* csvRecords(lines: AsyncIterable<{ number: number; text: string }>): AsyncGenerator<CsvRecord> {
  let pending: { line: number; fields: string[]; field: string } | undefined;
  for await (const { number, text } of lines) {
    const record = pending ?? { line: number, fields: [], field: '' };
    const state = parseLine(text, record, pending !== undefined);
    if (state === 'open') {
      pending = record;
      continue;
    }
    pending = undefined;
    if (typeof state === 'object') {
      yield { line: record.line, problem: state.problem };
      continue;
    }
    // A blank line is no record (a trailing newline at the end of the file, or spacing).
    if (record.fields.length === 0 && record.field === '' && text.trim() === '') continue;
    record.fields.push(record.field);
    yield { line: record.line, fields: record.fields };
  }
  if (pending) yield { line: pending.line, problem: 'a quoted field is never closed' };
}

/**
 * Reads one line into the record. `insideQuotes`: the line continues a quoted field (the line
 * break belongs to the field). 'open' when the line ends inside quotes.
 */
function parseLine(text: string, record: { fields: string[]; field: string }, insideQuotes: boolean): 'done' | 'open' | { problem: string } {
  let quoted = insideQuotes;
  if (insideQuotes) record.field += '\n';
  let startOfField = !insideQuotes && record.field === '';
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (quoted) {
      if (char !== '"') record.field += char;
      else if (text[index + 1] === '"') {
        record.field += '"';
        index += 1;
      } else {
        quoted = false;
        const next = text[index + 1];
        if (next !== undefined && next !== ',') return { problem: `a character after a closing quote (column ${index + 2})` };
      }
    } else if (char === ',') {
      record.fields.push(record.field);
      record.field = '';
      startOfField = true;
      continue;
    } else if (char === '"') {
      if (!startOfField) return { problem: `a quote inside an unquoted field (column ${index + 1})` };
      quoted = true;
    } else record.field += char;
    startOfField = false;
  }
  return quoted ? 'open' : 'done';
}
