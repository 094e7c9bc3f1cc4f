import type { Sender } from '../domain/delivery.service';

/**
 * POSTs a delivery with fetch: bounded by the timeout from connect to answer, redirects not
 * followed (a 3xx is a failed attempt: a signed body goes only where it was configured), the
 * answer's body never read.
 */
export const httpSender: Sender = async (url, body, headers, timeoutMs) => {
  const started = performance.now();
  const durationMs = () => Math.round(performance.now() - started);
  try {
    const response = await fetch(url, { method: 'POST', body, headers, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel().catch(() => undefined);
    return { responseCode: response.status, error: null, durationMs: durationMs() };
  } catch (error) {
    // Duck-typed: the abort's DOMException is not always an instance of this realm's Error.
    const name = (error as { name?: unknown } | undefined)?.name;
    const reason =
      name === 'TimeoutError' || name === 'AbortError' ? `no answer within ${timeoutMs} ms` : `could not reach the endpoint (${causeOf(error)})`;
    return { responseCode: null, error: reason, durationMs: durationMs() };
  }
};

/** The network reason (ECONNREFUSED, ENOTFOUND, ...), never a stack. */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  const message = (error as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : 'unknown error';
}
