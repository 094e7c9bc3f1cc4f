import { checkIdentifier } from '../../services/rules/identifiers';
import type { BadLine } from '../files/bad-lines';
import { csvRecords } from '../files/csv';
import type { FileLines } from '../files/file-lines';

/** One user to add, from the line it is on; the identifier in its type's canonical spelling. */
export interface EntryRow {
  line: number;
  identifier: string;
  identifier_type: string;
}

const COLUMNS = ['identifier', 'identifier_type'] as const;

/**
 * The rows of an entries CSV: a header naming the columns `identifier` and `identifier_type` (in
 * any order, any letter case; other columns are ignored), then one user a line, each checked
 * against its type's format exactly as the API checks it (services/rules/identifiers.ts), so a
 * file that passes here is a file the API takes.
 */
export async function* entryRows(file: FileLines): AsyncGenerator<EntryRow | BadLine> {
  let columns: Record<(typeof COLUMNS)[number], number> | undefined;
  for await (const record of csvRecords(file.lines)) {
    if (record.problem !== undefined) {
      yield { line: record.line, problem: record.problem };
      if (!columns) return;
      continue;
    }
    if (!columns) {
      const header = record.fields.map((name) => name.trim().toLowerCase());
      const missing = COLUMNS.filter((name) => !header.includes(name));
      if (missing.length > 0) {
        yield { line: record.line, problem: `the header must name the columns ${COLUMNS.join(' and ')} (missing: ${missing.join(', ')})` };
        return;
      }
      columns = { identifier: header.indexOf('identifier'), identifier_type: header.indexOf('identifier_type') };
      continue;
    }
    const identifier = record.fields[columns.identifier]?.trim() ?? '';
    const identifierType = record.fields[columns.identifier_type]?.trim() ?? '';
    if (identifier === '' || identifierType === '') {
      yield { line: record.line, problem: `${identifier === '' ? 'identifier' : 'identifier_type'} is empty` };
      continue;
    }
    const checked = checkIdentifier(identifier, identifierType);
    if (!checked.user) {
      yield { line: record.line, problem: checked.violations.map((violation) => `${violation.field} ${violation.reason}`).join('; ') };
      continue;
    }
    yield { line: record.line, identifier: checked.user.identifier, identifier_type: checked.user.identifierType };
  }
}

export function isBadLine(row: EntryRow | BadLine): row is BadLine {
  return 'problem' in row;
}
