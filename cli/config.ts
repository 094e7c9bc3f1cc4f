import { CliError, EXIT } from './exit-codes';

/** How the tool reaches the API: flags first, then the environment, then the defaults. */
export interface CliConfig {
  baseUrl: string;
  apiKey: string;
  /** Further attempts after a 5xx, a 429 or a network failure, each with the same body and keys. */
  retries: number;
  /** Per attempt. */
  timeoutMs: number;
}

export interface GlobalOptions {
  baseUrl?: string;
  apiKey?: string;
  retries?: string;
  timeoutMs?: string;
}

/** Where `npm start` answers. */
const DEFAULT_BASE_URL = 'http://localhost:8080';
const DEFAULT_RETRIES = 4;
/** Above the API's longest wait (a batch's ?wait=true, 30 s) plus room for the answer. */
const DEFAULT_TIMEOUT_MS = 60_000;

export function resolveConfig(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): CliConfig {
  const baseUrl = options.baseUrl || env.REFERRAL_BASE_URL || DEFAULT_BASE_URL;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new CliError(
      EXIT.usage,
      `the base URL "${baseUrl}" is not a URL (set REFERRAL_BASE_URL or --base-url, e.g. https://referrals.example.com)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(EXIT.usage, `the base URL must be http or https, not ${url.protocol}`);
  }
  const apiKey = options.apiKey || env.REFERRAL_API_KEY;
  if (!apiKey) throw new CliError(EXIT.usage, 'no API key: set REFERRAL_API_KEY (or pass --api-key)');
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    apiKey,
    retries: wholeNumber('--retries', options.retries, DEFAULT_RETRIES, 0, 20),
    timeoutMs: wholeNumber('--timeout-ms', options.timeoutMs, DEFAULT_TIMEOUT_MS, 1_000, 600_000),
  };
}

/** A whole-number option within bounds, or a usage error naming it. */
export function wholeNumber(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max) {
    throw new CliError(EXIT.usage, `${name} must be a whole number from ${min} to ${max}, not "${value}"`);
  }
  return number;
}
