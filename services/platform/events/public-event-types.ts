/**
 * The events a project may subscribe to, by their public names (docs/webhooks.md: each one's
 * `data`). The webhooks service checks subscriptions against this list and the gateway documents it
 * as the enum of `events`, so the two can never disagree.
 */
export const PUBLIC_EVENT_TYPES = [
  'conversion.processed',
  'conversion.reversed',
  'affiliate.created',
  'application.decided',
  'affiliate.status_changed',
  'claim_check.closed',
  'claim_check.claimed',
  'tax_status.changed',
  'audience.entry_added',
  'audience.entry_removed',
] as const;

export type PublicEventType = (typeof PUBLIC_EVENT_TYPES)[number];
