/** How test/sdk/sdk-surface.test.ts writes down one SDK call: its requests, and whether it worked. */
import type { SdkMethodResult } from '../../scripts/sdk-table/render';
import type { SeenRequest } from '../helpers/gateway-requests';

/** `GET /api/v1/payouts`, with `?type=point` when the request named one. */
export function describeRequest(request: SeenRequest): string {
  return `${request.method} ${request.path}${request.type === null ? '' : `?type=${request.type}`}`;
}

/**
 * `yes` when the call resolved, every request it sent was 2xx and its answer has the SDK's shape;
 * otherwise the first refusal's status and error code (`no: 404 NOT_OFFERED`), or what was wrong.
 */
export function verdict(
  outcome: PromiseSettledResult<unknown>,
  seen: SeenRequest[],
  shape?: (answer: unknown) => void,
): Pick<SdkMethodResult, 'works' | 'detail'> {
  if (outcome.status === 'rejected') {
    const response = (outcome.reason as { response?: { status: number; data?: unknown } }).response;
    if (!response) return { works: 'no: it failed before any answer', detail: String(outcome.reason) };
    const body = response.data as { status?: unknown; code?: unknown; message?: unknown; details?: unknown } | undefined;
    const standard =
      body?.status === response.status && typeof body.code === 'string' && typeof body.message === 'string' && Array.isArray(body.details);
    const works = standard ? `no: ${response.status} ${String(body.code)}` : `no: ${response.status}, not in the standard error body`;
    return { works, detail: JSON.stringify(body) };
  }
  // getAffiliateCode answers null for a 404: a refusal the SDK swallowed is no answer.
  const refused = seen.find((request) => request.status >= 300);
  if (refused) return { works: `no: ${refused.status}` };
  try {
    shape?.(outcome.value);
  } catch (error) {
    return { works: 'no: its answer is not the SDK’s shape', detail: (error as Error).message };
  }
  return { works: 'yes' };
}
