import { EVENT_CONSUMERS } from '../../common/events/consumers';
import { consumerJob, defineConsumer } from '../../common/outbox/consumer';
import type { WebhooksDatabase } from '../database';
import { createDeliveriesForEvent } from '../repositories/delivery.repository';
import { subscribedWebhookIds } from '../repositories/webhook.repository';
import { publish, PUBLISHED_EVENT_TYPES, type PublishedEventType } from '../domain/public-events';

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
});
