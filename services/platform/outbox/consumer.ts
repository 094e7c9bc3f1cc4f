import { type Kysely, sql, type Transaction } from 'kysely';
import { z } from 'zod';
import type { Clock } from '../clock';
import { EVENT_CONSUMERS, type EventConsumerEntry } from '../events/consumers';
import { EVENT_PAYLOADS, type EventType, isEventType } from '../events/contracts';
import type { Logger } from '../logger';
import type { JobDefinition, JobProcessor } from '../queue';
import {
  type ConsumerJobData,
  consumerJobData,
  type EventJobData,
  type EventPackJobData,
  eventPackJobData,
  eventsOfJob,
  type OutboxEvent,
  type OutboxEventOf,
} from './event';
import type { OutboxTables, ProcessedOutcome } from './tables';

/** What a handler may answer: nothing (its effect is applied), or why the event asks for nothing that can still be done. */
export type HandleResult = void | { ignored: string };

/** What a handler gets besides the event: the consumer's clock reading and logger. */
export interface ConsumerContext {
  now: Date;
  logger: Logger;
}

/**
 * The job that carries events to one consumer: its queue, and a job id per (event, consumer); a
 * batch of events (event.ts, BATCHED_EVENT_TYPES) is one job under the id of its first event and size.
 */
export type EventJob = JobDefinition<ConsumerJobData> & { jobId: (data: ConsumerJobData) => string };

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
  /**
   * For an event that most often asks for nothing (e.g. no one subscribes to it): records it as
   * handled in processed_events in ONE statement, without a transaction, when that statement finds
   * there is nothing to do (true); false (something to do, or already recorded) goes the usual way,
   * through `handle`. Must be atomic: what it checks and the row it writes, in that one statement.
   */
  shortcut?(db: Kysely<DB>, event: OutboxEventOf<T>, context: ConsumerContext): Promise<boolean>;
  /**
   * Optional batch form of `handle` (a job carrying several events): applies all the events given
   * (each claimed in processed_events by this transaction, none twice) with a few set-based
   * statements; answers the ids of those that can never apply, with why. Throwing rolls the whole
   * batch back, and its events are then delivered one by one through `handle`.
   */
  handleBatch?(trx: Transaction<DB>, events: ReadonlyArray<OutboxEventOf<T>>, context: ConsumerContext): Promise<Map<string, string>>;
  /**
   * Optional batch form of `shortcut`: ONE statement for the batch; answers the ids it recorded. It sees
   * each event's envelope only (id, type, project, time): the payloads are read (parsed by their
   * contract) only for the events it leaves, so a batch it records whole costs no payload parsing. An
   * event it records had nothing to do, whatever its payload holds.
   */
  shortcutBatch?(db: Kysely<DB>, events: ReadonlyArray<OutboxEnvelopeOf<T>>, context: ConsumerContext): Promise<Set<string>>;
}

/** An event without its payload, as a batch shortcut sees it. */
export type OutboxEnvelopeOf<T extends EventType> = { [K in T]: Omit<OutboxEvent<K>, 'payload'> }[T];

/** The job of a consumer of the catalog (events/consumers.ts): what producers queue and the consumer runs. */
export function consumerJob(consumer: Pick<EventConsumerEntry, 'name'>): EventJob {
  return {
    queue: `events-${consumer.name}`,
    data: consumerJobData,
    jobId: (data) => ('events' in data ? `${data.events[0]!.id}+${data.events.length}-${consumer.name}` : `${data.id}-${consumer.name}`),
    // processed_events is what makes a second delivery harmless, so finished jobs need not stay in Redis
    // (a payload may list 10,000 users). Failed ones stay, for the relay to put back (outbox/recovery.ts).
    options: { removeOnComplete: true },
  };
}

/**
 * How the relay queues a packed batch (event.ts) to a consumer: the same queue, job id and options
 * as consumerJob, whose schema unpacks it for the worker.
 */
export function consumerPackJob(
  consumer: Pick<EventConsumerEntry, 'name'>,
): JobDefinition<EventPackJobData> & { jobId: (data: EventPackJobData) => string } {
  const job = consumerJob(consumer);
  return { queue: job.queue, data: eventPackJobData, jobId: (data) => `${data.first}+${data.count}-${consumer.name}`, options: job.options };
}

/**
 * A consumer of events, declared in the service that runs it. It must be in the catalog
 * (events/consumers.ts) with the same event types, since that is what producers read.
 */
export function defineConsumer<DB extends OutboxTables, T extends EventType>(definition: {
  name: string;
  eventTypes: readonly T[];
  handle(trx: Transaction<DB>, event: OutboxEventOf<T>, context: ConsumerContext): Promise<HandleResult>;
  shortcut?(db: Kysely<DB>, event: OutboxEventOf<T>, context: ConsumerContext): Promise<boolean>;
  handleBatch?(trx: Transaction<DB>, events: ReadonlyArray<OutboxEventOf<T>>, context: ConsumerContext): Promise<Map<string, string>>;
  shortcutBatch?(db: Kysely<DB>, events: ReadonlyArray<OutboxEnvelopeOf<T>>, context: ConsumerContext): Promise<Set<string>>;
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
      `event consumer ${definition.name} must be listed in services/platform/events/consumers.ts with the event types ${definition.eventTypes.join(', ')}: producers relay what that list says`,
    );
  }
  return { ...definition, job: consumerJob(definition) };
}

/** nothing_to_do: recorded by the consumer's shortcut, with nothing stored to act on after the commit. */
export type DeliveryOutcome = ProcessedOutcome | 'duplicate' | 'nothing_to_do';

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
    logger.warn(
      { consumer: consumer.name, event_id: data.id, event_type: data.type, reason: event.unreadable },
      'event ignored: the consumer cannot read it',
    );
    await recordOutcome(db, consumer.name, data, 'ignored', event.unreadable, clock.now());
    return 'ignored';
  }
  if (consumer.shortcut && (await consumer.shortcut(db, event as OutboxEventOf<EventType>, { now: clock.now(), logger }))) return 'nothing_to_do';
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
    await markIgnored(trx, consumer.name, data, result.ignored, logger);
    return 'ignored';
  });
}

/** What every step of a job's delivery works with: the consumer, its database, clock and logger. */
interface Delivery<DB extends OutboxTables> {
  db: Kysely<DB>;
  consumer: EventConsumer<DB, EventType>;
  clock: Clock;
  logger: Logger;
}

/**
 * Delivers several events in ONE transaction: claims them all in processed_events with one
 * statement (those claimed before are duplicates), then applies each claimed one in order. Throws
 * (and applies nothing) if any handler throws; an unreadable event is left to deliverEvent.
 */
async function deliverTogether<DB extends OutboxTables>(delivery: Delivery<DB>, jobEvents: readonly ReadJobEvent[]): Promise<DeliveryOutcome[]> {
  const { db, consumer, clock, logger } = delivery;
  const events = jobEvents.map(({ data }) => data);
  const read = jobEvents.map(({ event }) => event);
  if (read.some((event) => 'unreadable' in event)) throw new Error('the batch holds an event the consumer cannot read');
  return db.transaction().execute(async (trx) => {
    const now = clock.now();
    // Two array parameters, not six per event: a batch holds up to 1,000 events, and a VALUES list
    // of 6,000 parameters costs PostgreSQL more to plan, and pg more to bind, than the insert itself.
    // Raw: INSERT ... SELECT over unnest'ed arrays, in the order given.
    const { rows: claimedRows } = await sql<{ event_id: string }>`
      INSERT INTO processed_events (consumer, event_id, event_type, outcome, note, processed_at)
      SELECT ${consumer.name}::text, e.id, e.type, 'handled', NULL, ${now}::timestamptz
      FROM unnest(${events.map((data) => data.id)}::uuid[], ${events.map((data) => data.type)}::text[]) WITH ORDINALITY AS e(id, type, n)
      ORDER BY e.n
      ON CONFLICT (consumer, event_id) DO UPDATE SET outcome = 'handled', note = NULL, processed_at = excluded.processed_at
        WHERE processed_events.outcome = 'failed'
      RETURNING event_id`.execute(trx);
    const claimed = new Set(claimedRows.map((row) => row.event_id));
    if (consumer.handleBatch) return applyBatch(trx, delivery, read as OutboxEvent[], claimed);
    const outcomes: DeliveryOutcome[] = [];
    for (const event of read as OutboxEvent[]) {
      if (!claimed.has(event.id)) {
        outcomes.push('duplicate');
        continue;
      }
      const result = await consumer.handle(trx, event as OutboxEventOf<EventType>, { now: clock.now(), logger });
      if (!result) {
        outcomes.push('handled');
        continue;
      }
      await markIgnored(trx, consumer.name, event, result.ignored, logger);
      outcomes.push('ignored');
    }
    return outcomes;
  });
}

/** The claimed events of a batch through the consumer's batch form; the others are duplicates. */
async function applyBatch<DB extends OutboxTables>(
  trx: Transaction<DB>,
  { consumer, clock, logger }: Delivery<DB>,
  events: readonly OutboxEvent[],
  claimed: ReadonlySet<string>,
): Promise<DeliveryOutcome[]> {
  const applying = events.filter((event) => claimed.has(event.id)) as OutboxEventOf<EventType>[];
  const ignored = applying.length === 0 ? new Map<string, string>() : await consumer.handleBatch!(trx, applying, { now: clock.now(), logger });
  for (const [id, reason] of ignored) {
    const event = applying.find((candidate) => candidate.id === id);
    await markIgnored(trx, consumer.name, { id, type: event?.type }, reason, logger);
  }
  return events.map((event) => (!claimed.has(event.id) ? 'duplicate' : ignored.has(event.id) ? 'ignored' : 'handled'));
}

/**
 * The worker's processor for a consumer's queue. A batch's events are applied together in one
 * transaction when they all apply; otherwise one by one, each in its own transaction, as if each
 * had its own job: one that fails does not hold up the others, and the job then fails with the
 * first error, so that its retry delivers what is left (the events already applied are duplicates
 * by then). `afterEach` runs for each event after the commit that applied it.
 */
export function eventProcessor<DB extends OutboxTables>(
  db: Kysely<DB>,
  consumer: EventConsumer<DB, EventType>,
  clock: Clock,
  logger: Logger,
  afterEach?: (data: EventJobData) => Promise<void>,
): JobProcessor<ConsumerJobData> {
  const delivery: Delivery<DB> = { db, consumer, clock, logger };
  return async (data, _job, signal) => {
    let events = eventsOfJob(data);
    if (events.length > 1) {
      // The same event twice in one job would be claimed twice by one statement (which PostgreSQL refuses).
      // Each is read (its payload parsed by its contract) at most once, for the shortcut and the delivery
      // together alike; a batch shortcut needs no payload, so only the events it leaves are read.
      const unique = [...new Map(events.map((event) => [event.id, event])).values()];
      // The consumer's shortcut first, event by event (one statement each, as for a single event);
      // then what is left, usually all applying, in one transaction (one commit, one insert of
      // their processed_events rows). Any failure there rolls it back, and the events are
      // delivered one by one below, so that only the failing one waits for the retry.
      const total = events.length;
      let read: ReadJobEvent[];
      if (consumer.shortcutBatch)
        read = (await withoutBatchShortcut(delivery, unique)).map((event) => ({ data: event, event: readEvent(consumer, event) }));
      else {
        read = unique.map((event) => ({ data: event, event: readEvent(consumer, event) }));
        if (consumer.shortcut) read = await withoutShortcut(delivery, read);
      }
      events = read.map((event) => event.data);
      const together =
        read.length < 2 || signal?.aborted
          ? undefined
          : await deliverTogether(delivery, read).catch((error: unknown) => {
              // Handed back at shutdown meanwhile: no second try here (the database may be closing).
              if (signal?.aborted) throw error;
              logger.warn(
                { err: error, consumer: consumer.name, events: events.length },
                'a batch of events could not be applied together; delivering them one by one',
              );
              return undefined;
            });
      if (together || events.length === 0) {
        for (const event of events) await afterEach?.(event);
        return total;
      }
    }
    const outcomes: DeliveryOutcome[] = [];
    let firstError: unknown;
    for (const event of events) {
      // Handed back at shutdown: the job runs again elsewhere and skips what was applied here.
      if (signal?.aborted) break;
      try {
        const outcome = await deliverEvent(db, consumer, event, clock, logger);
        outcomes.push(outcome);
        if (outcome !== 'nothing_to_do') await afterEach?.(event);
      } catch (error) {
        if (events.length === 1 && !('events' in data)) throw error;
        firstError ??= error;
        logger.warn(
          { err: error, consumer: consumer.name, event_id: event.id, event_type: event.type },
          'event of a batch failed; the job retries it',
        );
      }
    }
    if (firstError !== undefined) throw firstError;
    return 'events' in data ? data.events.length : outcomes[0];
  };
}

/** An event of a job as it came (for the one-by-one delivery) and as read by the consumer (readEvent). */
interface ReadJobEvent {
  data: EventJobData;
  event: ReturnType<typeof readEvent>;
}

/** The events of a batch that the consumer's shortcut did not record (nothing to do for them). */
async function withoutShortcut<DB extends OutboxTables>(
  { db, consumer, clock, logger }: Delivery<DB>,
  events: readonly ReadJobEvent[],
): Promise<ReadJobEvent[]> {
  const left: ReadJobEvent[] = [];
  for (const read of events) {
    const { event } = read;
    if ('unreadable' in event || !(await consumer.shortcut!(db, event as OutboxEventOf<EventType>, { now: clock.now(), logger }))) left.push(read);
  }
  return left;
}

/**
 * The events of a batch that the consumer's batch shortcut did not record, in one statement for all. It
 * is given the envelopes of the events of types the consumer consumes; their payloads are not read here.
 */
async function withoutBatchShortcut<DB extends OutboxTables>(
  { db, consumer, clock, logger }: Delivery<DB>,
  events: readonly EventJobData[],
): Promise<EventJobData[]> {
  const envelopes = events.flatMap((data): Array<OutboxEnvelopeOf<EventType>> => {
    if (!isEventType(data.type) || !consumer.eventTypes.includes(data.type)) return [];
    return [{ id: data.id, type: data.type, projectId: data.projectId, createdAt: new Date(data.createdAt) }];
  });
  if (envelopes.length === 0) return [...events];
  const recorded = await consumer.shortcutBatch!(db, envelopes, { now: clock.now(), logger });
  return events.filter((data) => !recorded.has(data.id));
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

/**
 * Each type's contract compiled (zod's AOT fast path), on the first event of the type read here: it
 * accepts, refuses and answers exactly as the contract's runtime parser does (an event it refuses is
 * parsed again by the runtime, for the issues recorded with it), in a third of the time on a paid
 * conversion's payload (bench/unpack-events.ts), which every consumer of the type parses per event.
 */
const compiledContracts = new Map<EventType, (typeof EVENT_PAYLOADS)[EventType]>();

/** The contract a consumer reads a payload of `type` with (readEvent). */
export function payloadContract(type: EventType): (typeof EVENT_PAYLOADS)[EventType] {
  let contract = compiledContracts.get(type);
  if (!contract) compiledContracts.set(type, (contract = z.compile(EVENT_PAYLOADS[type])));
  return contract;
}

function readEvent(consumer: Pick<EventConsumerEntry, 'name' | 'eventTypes'>, data: EventJobData): OutboxEvent | { unreadable: string } {
  if (!isEventType(data.type) || !consumer.eventTypes.includes(data.type)) {
    return { unreadable: `${consumer.name} does not consume events of type ${data.type}` };
  }
  const payload = payloadContract(data.type).safeParse(data.payload);
  if (!payload.success) return { unreadable: `the payload does not match the contract of ${data.type}: ${payload.error.message}` };
  return { id: data.id, type: data.type, projectId: data.projectId, payload: payload.data, createdAt: new Date(data.createdAt) };
}

/**
 * Turns the claim of an event the handler answered `{ ignored }` for into an `ignored` outcome with
 * its reason, in the handler's transaction, and says so in the log.
 */
async function markIgnored<DB extends OutboxTables>(
  trx: Transaction<DB>,
  consumer: string,
  event: { id: string; type: string | undefined },
  reason: string,
  logger: Logger,
): Promise<void> {
  logger.warn({ consumer, event_id: event.id, event_type: event.type, reason }, 'event ignored by its consumer');
  await asOutbox(trx)
    .updateTable('processed_events')
    .set({ outcome: 'ignored', note: reason })
    .where('consumer', '=', consumer)
    .where('event_id', '=', event.id)
    .execute();
}

function asOutbox<DB extends OutboxTables>(db: Kysely<DB>): Kysely<OutboxTables> {
  return db as unknown as Kysely<OutboxTables>;
}
