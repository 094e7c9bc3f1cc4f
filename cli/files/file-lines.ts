import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { access, constants } from 'node:fs/promises';
import readline from 'node:readline';
import { CliError, EXIT } from '../exit-codes';

/** A file read line by line as it streams (never whole in memory), with the SHA-256 of its bytes once read to the end. */
export interface FileLines {
  /** Each line without its line break (\n or \r\n), numbered from 1; a leading byte-order mark is dropped. */
  lines: AsyncIterable<{ number: number; text: string }>;
  /** The hex SHA-256 of the whole file; only once `lines` has been read to the end. */
  sha256(): string;
}

/** Fails with a usage error (exit 2) naming the file when it cannot be read. */
export async function checkReadable(path: string): Promise<void> {
  try {
    await access(path, constants.R_OK);
  } catch (error) {
    throw new CliError(EXIT.usage, `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

export function fileLines(path: string): FileLines {
  const hash = createHash('sha256');
  let digest: string | undefined;
  const stream = createReadStream(path);
  stream.on('data', (chunk) => hash.update(chunk));
  stream.on('end', () => (digest = hash.digest('hex')));
  async function* numbered() {
    const reader = readline.createInterface({ input: stream, crlfDelay: Infinity });
    let number = 0;
    try {
      for await (const line of reader) {
        number += 1;
        yield { number, text: number === 1 ? line.replace(/^\uFEFF/, '') : line };
      }
    } catch (error) {
      throw new CliError(EXIT.usage, `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
  return {
    lines: numbered(),
    sha256() {
      if (digest === undefined) throw new Error(`${path} has not been read to the end`);
      return digest;
    },
  };
}
