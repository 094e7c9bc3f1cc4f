import { CliError, EXIT } from '../exit-codes';

/** How many bad lines an error lists before "and N more". */
const LISTED_LINES = 50;

export interface BadLine {
  line: number;
  problem: string;
}

/** A file refused before anything was sent (exit 2): each bad line with its number, so it can be fixed and run again. */
export function badLinesError(path: string, badLines: BadLine[], badCount: number): CliError {
  const listed = badLines.slice(0, LISTED_LINES).map((bad) => `\n  line ${bad.line}: ${bad.problem}`);
  const more = badCount > LISTED_LINES ? `\n  ... and ${badCount - LISTED_LINES} more` : '';
  return new CliError(EXIT.usage, `${path}: ${badCount} bad line${badCount === 1 ? '' : 's'}, nothing was sent:${listed.join('')}${more}`);
}

/** Collects bad lines while a file is checked, keeping only those an error will list. */
export class BadLines {
  readonly listed: BadLine[] = [];
  count = 0;

  add(bad: BadLine): void {
    this.count += 1;
    if (this.listed.length < LISTED_LINES) this.listed.push(bad);
  }

  throwIfAny(path: string): void {
    if (this.count > 0) throw badLinesError(path, this.listed, this.count);
  }
}
