import pino from 'pino';
import { currentRequestId } from './request-context';

export type Logger = pino.Logger;

export interface LoggerOptions {
  service: string;
  level: string;
  /** Where lines go; stdout by default. Tests pass a stream to read what was logged. */
  destination?: pino.DestinationStream;
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
  return pino(
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
    options.destination ?? pino.destination({ sync: false }),
  );
}
