import { createRequire } from 'node:module';
import pino from 'pino';
import type * as PinoPretty from 'pino-pretty';
import { currentRequestId } from './request-context';

export type Logger = pino.Logger;

/** How lines are written: one JSON object per line (for collectors), or readable text (for a person). */
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LoggerOptions {
  service: string;
  level: string;
  /** LOG_FORMAT; unset, chooseLogFormat decides. */
  format?: LogFormat;
  /** NODE_ENV: production never chooses the pretty format by itself. */
  nodeEnv?: string;
  /** Where lines go; stdout by default. Tests pass a stream to read what was logged. */
  destination?: pino.DestinationStream;
}

/**
 * LOG_FORMAT when set; otherwise readable lines for a person watching a terminal in development,
 * and JSON everywhere else (a pipe, a file, a container's log collector, production).
 */
export function chooseLogFormat(options: { format?: LogFormat; nodeEnv?: string; isTTY: boolean }): LogFormat {
  if (options.format) return options.format;
  return options.isTTY && options.nodeEnv !== 'production' ? 'pretty' : 'json';
}

/**
 * Secrets and tax identification numbers must never be logged. Code does not log request
 * bodies or credentials in the first place; these paths are the second line of defence.
 */
const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'key',
  '*.key',
  'secret',
  '*.secret',
  'token',
  '*.token',
  'signature',
  '*.signature',
  'tax_id_number',
  '*.tax_id_number',
  'taxIdNumber',
  '*.taxIdNumber',
  'tin',
  '*.tin',
];

export function createLogger(options: LoggerOptions): Logger {
  const toTerminal = !options.destination && process.stdout.isTTY === true;
  const stdout = options.destination ? undefined : pino.destination({ sync: false });
  const destination = options.destination ?? stdout!;
  const format = chooseLogFormat({ format: options.format, nodeEnv: options.nodeEnv, isTTY: toTerminal });
  const logger = pino(
    {
      level: options.level,
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      mixin: () => {
        const requestId = currentRequestId();
        return requestId ? { request_id: requestId } : {};
      },
    },
    format === 'pretty' ? new PrettyLines(destination, toTerminal) : destination,
  );
  if (stdout) ownStdout.set(logger, stdout);
  return logger;
}

/** The stdout streams createLogger opened, so that closeLogger can wait for them. */
const ownStdout = new WeakMap<Logger, ReturnType<typeof pino.destination>>();

/** How long a stopping process waits for its last lines to reach a slow reader. */
const CLOSE_LOGS_WAIT_MS = 2_000;

/**
 * The last step of a graceful stop: waits until every line the logger wrote has reached stdout,
 * then closes it (nothing may log after). Lines go out asynchronously, and pino's own flush at
 * exit skips a write still in progress: into a pipe whose reader lags (a supervisor, a container
 * runtime) a whole chunk of the last lines would be lost. A destination a caller passed in is the
 * caller's to close.
 */
export async function closeLogger(logger: Logger): Promise<void> {
  const stdout = ownStdout.get(logger);
  if (!stdout) return;
  ownStdout.delete(logger);
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, CLOSE_LOGS_WAIT_MS);
    stdout.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    stdout.end();
  });
}

/**
 * Rewrites each line pino has serialised (redaction has already happened) as readable text, in
 * the calling thread, into the same destination the JSON lines would go to: no worker thread, so
 * closeLogger and pino's flush when the process exits work exactly as in the JSON format.
 */
class PrettyLines implements pino.DestinationStream {
  private readonly prettify: (line: string) => string;

  constructor(
    private readonly destination: pino.DestinationStream & { flush?: (callback?: (error?: Error) => void) => void },
    colorize: boolean,
  ) {
    // Loaded here, on the first pretty logger: a process that logs JSON (every service under a
    // supervisor or in a container, and the tests, which start them by the hundred) never loads it.
    const { prettyFactory } = createRequire(__filename)('pino-pretty') as typeof PinoPretty;
    this.prettify = prettyFactory({ colorize, translateTime: 'SYS:HH:MM:ss.l', ignore: 'service', messageFormat: '{service}: {msg}' });
  }

  write(line: string): void {
    this.destination.write(this.prettify(line));
  }

  flush(callback?: (error?: Error) => void): void {
    if (this.destination.flush) this.destination.flush(callback);
    else callback?.();
  }
}
