import { Writable } from 'node:stream';
import { createLogger, type LogFormat, type Logger } from '../../services/platform/logger';

/** Every line a component logs during a test, kept in memory so tests can search it. */
export class LogCapture {
  readonly lines: string[] = [];

  /** Lines as JSON unless the format says otherwise (as JSON is what goes anywhere but a terminal). */
  logger(service: string, format?: LogFormat): Logger {
    const lines = this.lines;
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    return createLogger({ service, level: 'debug', format, destination: stream });
  }

  text(): string {
    return this.lines.join('\n');
  }
}
