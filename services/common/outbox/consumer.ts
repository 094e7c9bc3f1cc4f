import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../clock';
import { EVENT_CONSUMERS, type EventConsumerEntry } from '../events/consumers';
import { EVENT_PAYLOADS, type EventType, isEventType } from '../events/contracts';
import type { Logger } from '../logger';
import type { JobDefinition, JobProcessor } from '../queue';
import { type EventJobData, eventJobData, type OutboxEvent, type OutboxEventOf } from './event';
import type { OutboxTables, ProcessedOutcome } from './tables';

/** What a handler may answer: nothing (its effect is applied), or why the event asks for nothing that can still be done. */
export type HandleResult = void | { ignored: string };

/** What a handler gets besides the event: the consumer's clock reading and logger. */
export interface ConsumerContext {
  now: Date;
  logger: Logger;
}

/** The job that carries events to one consumer: its queue, and a job id per (event, consumer). */
export type EventJob = JobDefinition<EventJobData> & { jobId: (data: EventJobData) => string };

export interface EventConsumer<DB extends OutboxTables = OutboxTables, T extends EventType = EventType> {
  name: string;
  eventTypes: readonly T[];
  job: EventJob;
  /**
   * Applies one event, inside the transaction that also records it in processed_events: both
   * happen or neither, so a redelivered event changes nothing. Throwing rolls back and retries
   * (with backoff); answer `{ ignored }` for an event that can never apply, so it is not retried.
   */
  handle(trx: Transaction<DB>, event: OutboxEventOf<T>, context: ConsumerContext): Promise<HandleResult>;
}

/** The job of a consumer of the catalog (events/consumers.ts): what producers queue and the consumer runs. */
export function consumerJob(consumer: Pick<EventConsumerEntry, 'name'>): EventJob {
  return {
    queue: `events-${consumer.name}`,
    data: eventJobData,
    jobId: (event) => `${event.id}-${consumer.name}`,
    // processed_events is what makes a second delivery harmless, so finished jobs need not stay in Redis
    // (a payload may list 10,000 users). Failed ones stay, for the relay to put back (outbox/recovery.ts).
    options: { removeOnComplete: true },
  };
}

/**
 * A consumer of events, declared in the service that runs it. It must be in the catalog
 * (events/consumers.ts) with the same event types, since that is what producers read.
 */
export function defineConsumer<DB extends OutboxTables, T extends EventType>(definition: {
  name: string;
  eventTypes: readonly T[];
  handle(trx: Transaction<DB>, event: OutboxEventOf<T>, context: ConsumerContext): Promise<HandleResult>;
}): EventConsumer<DB, T> {
  const entry: EventConsumerEntry | undefined = Object.hasOwn(EVENT_CONSUMERS, definition.name)
    ? (EVENT_CONSUMERS as Record<string, EventConsumerEntry>)[definition.name]
    : undefined;
  const sameTypes =
    entry !== undefined &&
    entry.eventTypes.length === definition.eventTypes.length &&
    definition.eventTypes.every((type) => entry.eventTypes.includes(type));
  if (!sameTypes) {
    throw new Error(
      `event consumer ${definition.name} must be listed in services/common/events/consumers.ts with the event types ${definition.eventTypes.join(', ')}: producers relay what that list says`,
    );
  }
  return { ...definition, job: consumerJob(definition) };
}

export type DeliveryOutcome = ProcessedOutcome | 'duplicate';

/**
 * Runs one delivered event: claims (consumer, event id) in processed_events and applies the
 * handler in the same transaction. A second delivery, at any time or at the same moment, finds the
 * claim and changes nothing (a concurrent one waits on the first's row, then sees it). An event
 * recorded as failed (given up earlier) is tried again.
 */
export async function deliverEvent<DB extends OutboxTables>(
  db: Kysely<DB>,
  consumer: EventConsumer<DB, EventType>,
  data: EventJobData,
  clock: Clock,
  logger: Logger,
): Promise<DeliveryOutcome> {
  const event = readEvent(consumer, data);
  if ('unreadable' in event) {
    logger.warn({ consumer: consumer.name, event_id: data.id, event_type: data.type, reason: event.unreadable }, 'event ignored: the consumer cannot read it');
    await recordOutcome(db, consumer.name, data, 'ignored', event.unreadable, clock.now());
    return 'ignored';
  }
  return db.transaction().execute(async (trx) => {
    const claimed = await asOutbox(trx)
      .insertInto('processed_events')
      .values({ consumer: consumer.name, event_id: data.id, event_type: data.type, outcome: 'handled', note: null, processed_at: clock.now() })
      .onConflict((conflict) =>
        conflict
          .columns(['consumer', 'event_id'])
          .doUpdateSet({ outcome: 'handled', note: null, processed_at: clock.now() })
          .where('processed_events.outcome', '=', 'failed'),
      )
      .returning('event_id')
      .executeTakeFirst();
    if (!claimed) return 'duplicate';
    const result = await consumer.handle(trx, event as OutboxEventOf<EventType>, { now: clock.now(), logger });
    if (!result) return 'handled';
    logger.warn({ consumer: consumer.name, event_id: data.id, event_type: data.type, reason: result.ignored }, 'event ignored by its consumer');
    await asOutbox(trx)
      .updateTable('processed_events')
      .set({ outcome: 'ignored', note: result.ignored })
      .where('consumer', '=', consumer.name)
      .where('event_id', '=', data.id)
      .execute();
    return 'ignored';
  });
}

/** The worker's processor for a consumer's queue. */
export function eventProcessor<DB extends OutboxTables>(db: Kysely<DB>, consumer: EventConsumer<DB, EventType>, clock: Clock, logger: Logger): JobProcessor<EventJobData> {
  return (data) => deliverEvent(db, consumer, data, clock, logger);
}

/**
 * Records what became of an event outside a handler (unreadable, or given up): only where
 * nothing is recorded yet, so a handled event is never marked otherwise.
 */
export async function recordOutcome<DB extends OutboxTables>(
  db: Kysely<DB>,
  consumer: string,
  data: Pick<EventJobData, 'id' | 'type'>,
  outcome: Exclude<ProcessedOutcome, 'handled'>,
  note: string,
  now: Date,
): Promise<void> {
  await asOutbox(db)
    .insertInto('processed_events')
    .values({ consumer, event_id: data.id, event_type: data.type, outcome, note, processed_at: now })
    .onConflict((conflict) => conflict.columns(['consumer', 'event_id']).doNothing())
    .execute();
}

function readEvent(consumer: Pick<EventConsumerEntry, 'name' | 'eventTypes'>, data: EventJobData): OutboxEvent | { unreadable: string } {
  if (!isEventType(data.type) || !consumer.eventTypes.includes(data.type)) {
    return { unreadable: `${consumer.name} does not consume events of type ${data.type}` };
  }
  const payload = EVENT_PAYLOADS[data.type].safeParse(data.payload);
  if (!payload.success) return { unreadable: `the payload does not match the contract of ${data.type}: ${payload.error.message}` };
  return { id: data.id, type: data.type, projectId: data.projectId, payload: payload.data, createdAt: new Date(data.createdAt) };
}

function asOutbox<DB extends OutboxTables>(db: Kysely<DB>): Kysely<OutboxTables> {
  return db as unknown as Kysely<OutboxTables>;
}
