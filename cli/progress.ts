/**
 * Progress on stderr (stdout carries the results a script reads). On a terminal, one bar redrawn
 * in place; otherwise (a pipe, a log file, CI) a plain line per step, which is what a log can hold.
 */
export interface Progress {
  /** `done` of `total` units so far, and a short note (e.g. the counts so far). */
  update(done: number, note: string): void;
  /** A message that must not be drawn over (a retry, a warning). */
  message(text: string): void;
  /** Leaves the bar's last state on its own line. */
  finish(): void;
}

const BAR_WIDTH = 30;

export function progressOn(stream: NodeJS.WriteStream, total: number, unit: string): Progress {
  return stream.isTTY ? new Bar(stream, total, unit) : new Lines(stream, total, unit);
}

const count = (value: number) => value.toLocaleString('en-US');

class Bar implements Progress {
  private drawn = false;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly total: number,
    private readonly unit: string,
  ) {}

  update(done: number, note: string): void {
    const share = this.total === 0 ? 1 : Math.min(1, done / this.total);
    const filled = Math.round(share * BAR_WIDTH);
    const line = `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${String(Math.floor(share * 100)).padStart(3)}% ${count(done)}/${count(this.total)} ${this.unit}  ${note}`;
    // Cut to the terminal's width: a wrapped line cannot be redrawn in place.
    this.stream.write(`\r${line.slice(0, Math.max(10, (this.stream.columns ?? 80) - 1))}\x1b[K`);
    this.drawn = true;
  }

  message(text: string): void {
    this.stream.write(`${this.drawn ? '\r\x1b[K' : ''}${text}\n`);
    this.drawn = false;
  }

  finish(): void {
    if (this.drawn) this.stream.write('\n');
    this.drawn = false;
  }
}

class Lines implements Progress {
  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly total: number,
    private readonly unit: string,
  ) {}

  update(done: number, note: string): void {
    this.stream.write(`progress: ${count(done)}/${count(this.total)} ${this.unit}  ${note}\n`);
  }

  message(text: string): void {
    this.stream.write(`${text}\n`);
  }

  finish(): void {}
}
