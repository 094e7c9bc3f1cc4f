import type { EventType } from './contracts';

/**
 * Who consumes which events, as data: a producer's relay reads this list to know which queue each
 * event of its outbox goes to (one BullMQ queue per consumer), and a consumer's service registers
 * the handler of each entry that names it (defineConsumer in ../outbox/consumer.ts). Data only, so
 * every service may import it without importing another service's code.
 *
 * A new consumer is one entry here, and its handler in the service it names.
 */
export interface EventConsumerEntry {
  /** Unique across the platform: names its queue (events-<name>) and its rows in processed_events. */
  name: string;
  /** The service (catalog name) whose process runs the handler. */
  service: string;
  /** The event types it receives; every producer relays these to it. */
  eventTypes: readonly EventType[];
}

function consumers<T extends { [K in keyof T]: EventConsumerEntry & { name: K } }>(entries: T): T {
  return entries;
}

export const EVENT_CONSUMERS = consumers({
  /** The agency service's membership projection of its affiliates, behind its affiliate list's `audience` / `audience_ids` filters and the tiers. */
  'agency-audience-memberships': {
    name: 'agency-audience-memberships',
    service: 'agency',
    eventTypes: ['audience.entry_added', 'audience.entry_removed', 'audience.segment_deleted', 'audience.memberships.published'],
  },
  /** The agency service's projection of tier segments: attribution and affiliate bodies read each affiliate's current tier from it with the memberships. */
  'agency-segment-tiers': {
    name: 'agency-segment-tiers',
    service: 'agency',
    eventTypes: ['audience.segment_tier_changed', 'audience.segment_deleted'],
  },
  /** The agency service's affiliate metrics projection (volume, revenue, conversions, end users, earnings) behind its affiliate list. */
  'agency-affiliate-metrics': {
    name: 'agency-affiliate-metrics',
    service: 'agency',
    eventTypes: ['claim.conversion.processed', 'claim.conversion.reversed'],
  },
  /** The agency service's projection of tax statuses and settings: the affiliate list's tax_status without a call to the tax service. */
  'agency-tax-statuses': {
    name: 'agency-tax-statuses',
    service: 'agency',
    eventTypes: ['tax.tax_status.changed', 'tax.tax_statuses.published', 'tax.tax_settings.changed'],
  },
  /** Approving an application adds the user to the segment the admin chose. */
  'audience-application-approvals': {
    name: 'audience-application-approvals',
    service: 'audience',
    eventTypes: ['agency.application.approved'],
  },
  /** A new affiliate's memberships, published for the agency's projection (which set aside the user's entries while it was no affiliate). */
  'audience-affiliate-memberships': {
    name: 'audience-affiliate-memberships',
    service: 'audience',
    eventTypes: ['agency.affiliate.created'],
  },
  /** What dynamic audiences' conditions read: per user, its own conversions, whom it referred and their volume, what it earned. */
  'audience-condition-inputs': {
    name: 'audience-condition-inputs',
    service: 'audience',
    eventTypes: ['claim.conversion.processed', 'claim.conversion.reversed', 'agency.referral.created'],
  },
  /** What `event_count` conditions read: per user, its tracking events per name and UTC day. */
  'audience-user-event-counts': {
    name: 'audience-user-event-counts',
    service: 'audience',
    eventTypes: ['agency.user_events.counted'],
  },
  /** An unflagged affiliate's payouts that waited for review because of its flag go on to their hold (or become available). */
  'claim-affiliate-unflags': {
    name: 'claim-affiliate-unflags',
    service: 'claim',
    eventTypes: ['agency.affiliate.status_changed'],
  },
  /** Project webhooks: each event with a public name, fanned out to the endpoints subscribed to it (services/webhooks/domain/public-events.ts). */
  'webhooks-fan-out': {
    name: 'webhooks-fan-out',
    service: 'webhooks',
    eventTypes: [
      'claim.conversion.processed',
      'claim.conversion.reversed',
      'audience.entry_added',
      'audience.entry_removed',
      'agency.affiliate.created',
      'agency.application.decided',
      'agency.affiliate.status_changed',
      'claim.claim_check.closed',
      'claim.claim_check.claimed',
      'tax.tax_status.changed',
    ],
  },
} as const);

export const EVENT_CONSUMER_LIST: readonly EventConsumerEntry[] = Object.values(EVENT_CONSUMERS);
