import { setTimeout as delay } from 'node:timers/promises';
import type { z } from 'zod';
import { ReferralApiError } from '../../client';
import type { CliConfig } from '../config';
import { CliError, EXIT } from '../exit-codes';
import { describeApiError } from './api-errors';

export interface ApiRequest<T extends z.ZodType> {
  method: 'GET' | 'POST';
  /** From the base URL, e.g. /api/v1/conversions/batch. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  /** The documented shape of a successful answer: anything else is an error, never trusted. */
  schema: T;
}

/** Waits before retry n (0-based): 0.5 s, 1 s, 2 s, ... at most 8 s, or the server's Retry-After (at most 30 s). */
const BACKOFF_MS = { first: 500, max: 8_000, retryAfterMax: 30_000 };

/**
 * The one HTTP client of the tool: JSON in and out with the API key, retries of what is safe to
 * retry, and every failure turned into a CliError with a clear message and its exit code.
 *
 * Retried (same body, same headers: the commands make every request idempotent with an
 * Idempotency-Key or their ids): a network failure or timeout, 429, and any 5xx. Not retried: any
 * other 4xx, which the same request would get again.
 */
export class ApiClient {
  constructor(
    private readonly config: CliConfig,
    private readonly onRetry: (message: string) => void = () => undefined,
  ) {}

  async request<T extends z.ZodType>(request: ApiRequest<T>): Promise<{ status: number; body: z.output<T> }> {
    const url = this.url(request);
    for (let attempt = 0; ; attempt += 1) {
      let failure: Failure;
      try {
        return await this.once(request, url);
      } catch (error) {
        failure = classify(error, request);
      }
      if (!failure.retryable || attempt >= this.config.retries) throw failure.error;
      const waitMs = failure.retryAfterMs ?? Math.min(BACKOFF_MS.first * 2 ** attempt, BACKOFF_MS.max);
      this.onRetry(`${failure.error.message}; retry ${attempt + 1} of ${this.config.retries} in ${(waitMs / 1000).toFixed(1)} s`);
      await delay(waitMs);
    }
  }

  private url(request: ApiRequest<z.ZodType>): string {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined) query.set(name, String(value));
    const search = query.size > 0 ? `?${query}` : '';
    return `${this.config.baseUrl}${request.path}${search}`;
  }

  private async once<T extends z.ZodType>(request: ApiRequest<T>, url: string): Promise<{ status: number; body: z.output<T> }> {
    const headers: Record<string, string> = { ...request.headers, authorization: `Bearer ${this.config.apiKey}`, accept: 'application/json' };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(url, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: AbortSignal.timeout(this.config.timeoutMs),
    });
    const text = await response.text();
    const body = parseJson(text);
    if (!response.ok) throw apiError(response, body);
    const parsed = request.schema.safeParse(body);
    if (!parsed.success) {
      throw new CliError(
        EXIT.unavailable,
        `${request.method} ${request.path}: the answer (HTTP ${response.status}) is not the documented shape; is ${this.config.baseUrl} the referral gateway?`,
      );
    }
    return { status: response.status, body: parsed.data };
  }
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** The API's standard error body as a ReferralApiError (the client library's), with the wait it asks for. */
function apiError(response: Response, body: unknown): ReferralApiError & { retryAfterMs?: number } {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const details = Array.isArray(fields.details)
    ? fields.details.filter((item): item is { field: string; reason: string } => typeof item?.field === 'string' && typeof item?.reason === 'string')
    : [];
  const error: ReferralApiError & { retryAfterMs?: number } = new ReferralApiError(
    response.status,
    typeof fields.code === 'string' ? fields.code : 'HTTP_ERROR',
    typeof fields.message === 'string' ? fields.message : `HTTP ${response.status} ${response.statusText}`,
    details,
    response.headers.get('x-request-id'),
  );
  const retryAfter = Number(response.headers.get('retry-after'));
  if (Number.isFinite(retryAfter) && retryAfter > 0) error.retryAfterMs = Math.min(retryAfter * 1000, BACKOFF_MS.retryAfterMax);
  return error;
}

interface Failure {
  error: CliError;
  /** The same request may succeed later: the server or the network was unavailable. */
  retryable: boolean;
  retryAfterMs?: number;
}

/** Which exit code a failure means, and whether to try again. */
function classify(error: unknown, request: ApiRequest<z.ZodType>): Failure {
  const where = `${request.method} ${request.path}`;
  if (error instanceof CliError) return { error, retryable: false };
  if (error instanceof ReferralApiError) {
    const unavailable = error.status === 429 || error.status >= 500;
    const code = error.status === 401 || error.status === 403 ? EXIT.auth : unavailable ? EXIT.unavailable : EXIT.usage;
    return {
      error: new CliError(code, `${where}: ${describeApiError(error)}`),
      retryable: unavailable,
      retryAfterMs: (error as { retryAfterMs?: number }).retryAfterMs,
    };
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason =
    (error as Error).name === 'TimeoutError' ? 'no answer in time' : (cause?.code ?? cause?.message ?? (error as Error).message ?? String(error));
  return { error: new CliError(EXIT.unavailable, `${where}: the server could not be reached (${reason})`), retryable: true };
}
