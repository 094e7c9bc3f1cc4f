import type { ReferralApiError } from '../../client';

/** How many field violations a message lists before "and N more". */
const LISTED_DETAILS = 10;

/**
 * The API's standard error body in plain words: its message, its stable code and status, the
 * request id to quote to an operator, then each field violation on a line of its own.
 */
export function describeApiError(error: ReferralApiError): string {
  const head = `${error.message} (HTTP ${error.status} ${error.code}${error.requestId ? `, request ${error.requestId}` : ''})`;
  const listed = error.details.slice(0, LISTED_DETAILS).map((detail) => `\n  ${detail.field}: ${detail.reason}`);
  const more = error.details.length > LISTED_DETAILS ? `\n  ... and ${error.details.length - LISTED_DETAILS} more` : '';
  return head + listed.join('') + more;
}
