import { EVENT_CONSUMERS } from '../../platform/events/consumers';
import { consumerJob, defineConsumer } from '../../platform/outbox/consumer';
import type { WebhooksDatabase } from '../database';
import { createDeliveriesForEvent } from '../repositories/delivery.repository';
import { recordAllUnsubscribed, recordIfUnsubscribed, subscribedWebhookIds } from '../repositories/webhook.repository';
import { PUBLICATIONS, publish, PUBLISHED_EVENT_TYPES, type PublishedEventType } from '../domain/public-events';

const ENTRY = EVENT_CONSUMERS['webhooks-fan-out'];

/** The consumer's queue, for the manifest. */
export const fanOutJob = consumerJob(ENTRY);

/**
 * Every event with a public name becomes one delivery per subscribed endpoint, in the transaction
 * that records the event as processed: a redelivered event creates nothing. The jobs are queued
 * after the commit (registerConsumer's afterEach), and by the relay if that is lost.
 */
export const fanOutConsumer = defineConsumer<WebhooksDatabase, PublishedEventType>({
  name: ENTRY.name,
  eventTypes: PUBLISHED_EVENT_TYPES,
  handle: async (trx, event, { now }) => {
    const published = publish(event);
    await createDeliveriesForEvent(trx, published, await subscribedWebhookIds(trx, published.projectId, published.type), now);
  },
  // No endpoint of the project subscribes (the usual case for conversions): recorded in one statement, nothing else.
  shortcut: (db, event, { now }) => recordIfUnsubscribed(db, ENTRY.name, event, PUBLICATIONS[event.type].type, now),
  // The same for a relay round's batch: one statement for all its events.
  shortcutBatch: (db, events, { now }) =>
    recordAllUnsubscribed(
      db,
      ENTRY.name,
      events.map((event) => ({ id: event.id, type: event.type, projectId: event.projectId, publicType: PUBLICATIONS[event.type].type })),
      now,
    ),
});
