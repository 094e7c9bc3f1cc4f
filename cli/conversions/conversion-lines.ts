import type { BadLine } from '../files/bad-lines';
import type { FileLines } from '../files/file-lines';

/** One conversion of an NDJSON file, as the JSON object on its line. */
export interface ConversionLine {
  line: number;
  id: string;
  conversion: Record<string, unknown>;
}

/** The API's limit on a conversion's id (conversionBody in the OpenAPI document). */
const MAX_ID_LENGTH = 128;

/**
 * The conversions of an NDJSON file: one JSON object a line (blank lines skipped), each with the
 * `id` that makes sending it again safe. Only that is checked here; the API checks the rest of
 * each conversion and refuses it alone, which the report gives per line.
 */
export async function* conversionLines(file: FileLines): AsyncGenerator<ConversionLine | BadLine> {
  for await (const { number, text } of file.lines) {
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      yield { line: number, problem: `not JSON (${(error as Error).message})` };
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      yield { line: number, problem: 'not a JSON object (one conversion a line)' };
      continue;
    }
    const id = (value as { id?: unknown }).id;
    if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH) {
      yield { line: number, problem: `id must be a string of 1 to ${MAX_ID_LENGTH} characters (it makes a resend safe)` };
      continue;
    }
    yield { line: number, id, conversion: value as Record<string, unknown> };
  }
}

export function isBadConversionLine(row: ConversionLine | BadLine): row is BadLine {
  return 'problem' in row;
}
