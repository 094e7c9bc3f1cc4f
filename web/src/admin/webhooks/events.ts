import type { ApiBody } from '../../api/client';

/** An event an endpoint may subscribe to: the API's documented enum (createWebhook's `events`). */
export type WebhookEvent = ApiBody<'/api/v1/projects/{projectId}/webhooks', 'post'>['events'][number];

/**
 * Each event with when it is sent (docs/webhooks.md). A Record over the API's enum: an event the
 * API adds or drops fails the type check here until this list follows.
 */
const WHEN: Record<WebhookEvent, string> = {
  'conversion.processed': 'a conversion was paid (or had no payout terms)',
  'conversion.reversed': 'a share of a paid conversion was reversed (a refund)',
  'affiliate.created': 'a user became an affiliate',
  'application.decided': 'an application was approved or rejected',
  'affiliate.status_changed': 'an affiliate was suspended, reactivated, flagged or unflagged',
  'claim_check.closed': 'a user’s claim checks were closed into vouchers',
  'claim_check.claimed': 'a voucher was redeemed on chain',
  'tax_status.changed': 'an affiliate’s tax status changed',
  'audience.entry_added': 'users entered an audience',
  'audience.entry_removed': 'users left an audience',
};

export const WEBHOOK_EVENTS = (Object.keys(WHEN) as WebhookEvent[]).map((name) => ({ name, when: WHEN[name] }));

export function isWebhookEvent(name: string): name is WebhookEvent {
  return Object.hasOwn(WHEN, name);
}
