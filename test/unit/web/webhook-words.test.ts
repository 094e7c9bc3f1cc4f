import { deliveryStatusText, webhookHealth } from '../../../web/src/admin/webhooks/delivery-words';

const failed = (code: number | null, error: string | null = null) =>
  ({ status: 'failed', attempts: 5, next_attempt_at: null, last_response_code: code, last_error: error }) as const;
const delivered = { status: 'delivered', attempts: 1, next_attempt_at: null, last_response_code: 200, last_error: null } as const;

/** A webhook's deliveries and health in words (the admin's webhooks pages). */
describe('webhook deliveries in words', () => {
  it('says where a delivery is: waiting, retrying with the next attempt, delivered or failed after its attempts', () => {
    const next = '2026-11-29T03:00:00.000Z';
    expect(deliveryStatusText({ status: 'pending', attempts: 0, next_attempt_at: next, last_response_code: null, last_error: null })).toBe(
      'Waiting for its first attempt, next by 2026-11-29 03:00 UTC',
    );
    expect(
      deliveryStatusText({ status: 'pending', attempts: 4, next_attempt_at: next, last_response_code: 404, last_error: 'the endpoint answered 404' }),
    ).toBe('Retrying: 4 attempts failed (last HTTP 404), next by 2026-11-29 03:00 UTC');
    expect(deliveryStatusText({ status: 'pending', attempts: 1, next_attempt_at: null, last_response_code: null, last_error: 'timed out' })).toBe(
      'Retrying: 1 attempt failed (last timed out)',
    );
    expect(deliveryStatusText(failed(404))).toBe('Failed after 5 attempts');
    expect(deliveryStatusText(delivered)).toBe('Delivered');
    expect(deliveryStatusText({ ...delivered, attempts: 3 })).toBe('Delivered after 3 attempts');
  });

  it('reads an endpoint’s health from its newest deliveries, not from its enabled flag', () => {
    expect(webhookHealth(false, [failed(404)])).toBe('Disabled: no events are sent');
    expect(webhookHealth(true, [])).toBe('Enabled: nothing delivered yet');
    expect(webhookHealth(true, [failed(404), failed(404), failed(404), failed(404), failed(404)])).toBe(
      'Failing: the last 5 deliveries got HTTP 404',
    );
    // A retrying delivery counts; one never tried yet does not; the run stops at the newest delivered one.
    const retrying = { status: 'pending', attempts: 2, next_attempt_at: null, last_response_code: 404, last_error: null } as const;
    const untried = { status: 'pending', attempts: 0, next_attempt_at: null, last_response_code: null, last_error: null } as const;
    expect(webhookHealth(true, [untried, retrying, failed(404), delivered, failed(500)])).toBe('Failing: the last 2 deliveries got HTTP 404');
    expect(webhookHealth(true, [failed(500), failed(null, 'connection refused')])).toBe(
      'Failing: the last 2 deliveries failed (HTTP 500; connection refused)',
    );
    expect(webhookHealth(true, [failed(null, 'timed out')])).toBe('Failing: the last delivery failed (timed out)');
    expect(webhookHealth(true, [untried, delivered, failed(404)])).toBe('Healthy: the last delivery arrived');
  });
});
