import type { FieldViolation } from '../../rules/errors';

/** Longest endpoint URL accepted. */
export const MAX_URL_LENGTH = 2_048;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why an endpoint URL is refused, or undefined when it is acceptable: https anywhere; plain http
 * only to this machine (localhost, 127.0.0.1, ::1) and never in production. No credentials in it
 * (they would be stored and shown), no fragment (never sent).
 */
export function endpointUrlProblem(value: string, production: boolean): string | undefined {
  if (value.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL (https://...)';
  }
  if (url.username || url.password) return 'must not contain credentials; authenticate deliveries by their signature';
  if (url.hash) return 'must not contain a fragment';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) {
    return production ? 'must use https' : undefined;
  }
  return url.protocol === 'http:' ? 'must use https (plain http is accepted only for localhost outside production)' : 'must use https';
}

export function urlViolations(value: string, production: boolean): FieldViolation[] {
  const problem = endpointUrlProblem(value, production);
  return problem ? [{ field: 'url', reason: problem }] : [];
}
