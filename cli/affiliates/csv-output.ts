import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { CliError, EXIT } from '../exit-codes';

/**
 * Where an export goes: stdout, or a file that appears only once complete (written beside it as
 * `<file>.partial`, renamed at the end), so a failed run never leaves a truncated CSV behind.
 */
export class CsvOutput {
  private readonly stream: NodeJS.WritableStream;
  private readonly partial: string | undefined;

  constructor(private readonly out: string | undefined) {
    this.partial = out === undefined ? undefined : `${out}.partial`;
    this.stream = this.partial === undefined ? process.stdout : createWriteStream(this.partial);
    this.stream.on('error', () => undefined); // surfaced by write() and close()
  }

  async write(text: string): Promise<void> {
    if (!this.stream.write(text)) await once(this.stream, 'drain');
  }

  /** Completes the file (rename over `out`). */
  async close(): Promise<void> {
    if (this.partial === undefined || this.out === undefined) return;
    const file = this.stream as WriteStream;
    file.end();
    try {
      await once(file, 'close');
      await rename(this.partial, this.out);
    } catch (error) {
      throw new CliError(EXIT.usage, `cannot write ${this.out}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }

  /** Removes the partial file of a failed run. */
  async discard(): Promise<void> {
    if (this.partial === undefined) return;
    (this.stream as WriteStream).destroy();
    await rm(this.partial, { force: true });
  }
}
