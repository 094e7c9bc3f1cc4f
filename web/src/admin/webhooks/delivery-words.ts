import type { ApiResult } from '../../api/client';
import { formatDateTime } from '../../ui/format';

type Delivery = ApiResult<'/api/v1/projects/{projectId}/webhooks/{webhookId}/deliveries', 'get'>['results'][number];
type Answered = Pick<Delivery, 'last_response_code' | 'last_error'>;
type DeliveryState = Pick<Delivery, 'status' | 'attempts' | 'next_attempt_at'> & Answered;

function attempts(count: number): string {
  return `${count} ${count === 1 ? 'attempt' : 'attempts'}`;
}

/** The last answer in a few words: "HTTP 404", or why there was none (timeout, refused connection). */
export function lastAnswer({ last_response_code: code, last_error: error }: Answered): string {
  if (code !== null) return error ? `HTTP ${code}: ${error}` : `HTTP ${code}`;
  return error ?? '—';
}

/** The last answer's code alone ("HTTP 404"), or why there was none: what a status or a health sentence quotes. */
function answerCode({ last_response_code: code, last_error: error }: Answered): string {
  return code !== null ? `HTTP ${code}` : (error ?? 'no answer');
}

/**
 * A delivery's status in words: "pending" alone hides whether the endpoint was ever tried, and that
 * a delivery on its last retry is about to fail for good.
 */
export function deliveryStatusText(delivery: DeliveryState): string {
  if (delivery.status === 'delivered') return delivery.attempts > 1 ? `Delivered after ${attempts(delivery.attempts)}` : 'Delivered';
  if (delivery.status === 'failed') return `Failed after ${attempts(delivery.attempts)}`;
  const next = delivery.next_attempt_at ? `, next by ${formatDateTime(delivery.next_attempt_at)}` : '';
  if (delivery.attempts === 0) return `Waiting for its first attempt${next}`;
  return `Retrying: ${attempts(delivery.attempts)} failed (last ${answerCode(delivery)})${next}`;
}

/** A delivery the endpoint has answered or failed to answer: not a pending one never tried yet. */
function tried(delivery: DeliveryState): boolean {
  return delivery.status !== 'pending' || delivery.attempts > 0;
}

/**
 * An endpoint's health from its newest deliveries (newest first): "Enabled" says only that events are
 * sent, not that they arrive. Failing when the newest tried deliveries all failed (settled or still
 * retrying), with the answers they got.
 */
export function webhookHealth(enabled: boolean, newestFirst: readonly DeliveryState[]): string {
  if (!enabled) return 'Disabled: no events are sent';
  const triedDeliveries = newestFirst.filter(tried);
  if (triedDeliveries.length === 0) return 'Enabled: nothing delivered yet';
  if (triedDeliveries[0]!.status === 'delivered') return 'Healthy: the last delivery arrived';
  const firstDelivered = triedDeliveries.findIndex((delivery) => delivery.status === 'delivered');
  const failing = firstDelivered === -1 ? triedDeliveries : triedDeliveries.slice(0, firstDelivered);
  const answers = [...new Set(failing.map(answerCode))];
  const which = failing.length === 1 ? 'the last delivery' : `the last ${failing.length} deliveries`;
  return answers.length === 1 && failing[0]!.last_response_code !== null
    ? `Failing: ${which} got ${answers[0]}`
    : `Failing: ${which} failed (${answers.join('; ')})`;
}
