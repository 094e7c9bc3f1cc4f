import type { EventPayload, EventType } from '../../platform/events/contracts';
import type { OutboxEvent } from '../../platform/outbox/event';
import { chainIdNumber, type ClaimReasonName, PAYOUT_KIND_OF_REASON } from '../../rules/payout-vocabulary';
import { PUBLIC_EVENT_TYPES, type PublicEventType } from '../../platform/events/public-event-types';

export { PUBLIC_EVENT_TYPES, type PublicEventType };

export function isPublicEventType(value: string): value is PublicEventType {
  return (PUBLIC_EVENT_TYPES as readonly string[]).includes(value);
}

/** How one internal event is published: its public name and its `data` (snake_case JSON, no internals). */
interface Publication<T extends EventType> {
  type: PublicEventType;
  data(payload: EventPayload<T>): Record<string, unknown>;
}

type Publications = { [T in EventType]?: Publication<T> };

const audienceEntries = (payload: EventPayload<'audience.entry_added' | 'audience.entry_removed'>) => ({
  audience_id: payload.segment_id,
  kind: payload.kind,
  users: payload.users,
});

/** The payloads are already public-shaped (snake_case, ids and facts only): published as they are, in a copy. */
const asIs = <T extends object>(payload: T) => ({ ...payload });

/**
 * A claim check as the API names it (services/rules/payout-vocabulary.ts): the kind of payout it
 * holds (`end_user_payout`, not the internal claim reason `end_user`), and its chain id a number.
 * Events stay internal-shaped in the outbox, so events written before this still publish this way.
 */
const publicCheck = <T extends { reason: ClaimReasonName; currency_chain_id: string }>(check: T) => ({
  ...check,
  reason: PAYOUT_KIND_OF_REASON[check.reason],
  currency_chain_id: chainIdNumber(check.currency_chain_id, 'currency_chain_id'),
});

const conversionProcessed = (payload: EventPayload<'claim.conversion.processed'>) => ({
  ...payload,
  // A point currency has no chain (null stays null).
  ...(payload.currency
    ? { currency: { ...payload.currency, chain_id: payload.currency.chain_id === null ? null : chainIdNumber(payload.currency.chain_id) } }
    : {}),
});

/**
 * Internal event -> public event: one entry per producer event. A new producer event is one entry
 * here plus its type in the webhooks-fan-out consumer (services/platform/events/consumers.ts).
 */
export const PUBLICATIONS = {
  'claim.conversion.processed': { type: 'conversion.processed', data: conversionProcessed },
  'claim.conversion.reversed': { type: 'conversion.reversed', data: asIs },
  'audience.entry_added': { type: 'audience.entry_added', data: audienceEntries },
  'audience.entry_removed': { type: 'audience.entry_removed', data: audienceEntries },
  'agency.affiliate.created': { type: 'affiliate.created', data: asIs },
  'agency.application.decided': { type: 'application.decided', data: asIs },
  'agency.affiliate.status_changed': { type: 'affiliate.status_changed', data: asIs },
  'claim.claim_check.closed': {
    type: 'claim_check.closed',
    data: (payload) => ({ ...payload, claim_checks: payload.claim_checks.map(publicCheck) }),
  },
  'claim.claim_check.claimed': { type: 'claim_check.claimed', data: publicCheck },
  // expires_at and version are there for the agency's projection (the order of a user's changes is internal): the public shape stays as documented.
  'tax.tax_status.changed': { type: 'tax_status.changed', data: ({ expires_at: _expiresAt, version: _version, ...payload }) => payload },
} satisfies Publications;

export type PublishedEventType = keyof typeof PUBLICATIONS;

export const PUBLISHED_EVENT_TYPES = Object.keys(PUBLICATIONS) as PublishedEventType[];

/** An event as every endpoint receives it: the body is `{ id, type, created_at, data }`. */
export interface PublicEvent {
  id: string;
  projectId: string;
  type: PublicEventType;
  createdAt: Date;
  data: Record<string, unknown>;
}

export function publish<T extends PublishedEventType>(event: OutboxEvent<T>): PublicEvent {
  const publication = PUBLICATIONS[event.type] as Publication<T>;
  return { id: event.id, projectId: event.projectId, type: publication.type, createdAt: event.createdAt, data: publication.data(event.payload) };
}

/** The body sent for an event: the same bytes on every attempt and resend (the signature covers them). */
export function eventBody(event: Pick<PublicEvent, 'id' | 'type' | 'createdAt' | 'data'>): string {
  return JSON.stringify({ id: event.id, type: event.type, created_at: event.createdAt.toISOString(), data: event.data });
}
