import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { z } from 'zod';
import type { EventPayload, EventType } from '../events/contracts';

/** An event as a consumer receives it (its payload parsed by the contract of its type). */
export interface OutboxEvent<T extends EventType = EventType> {
  id: string;
  type: T;
  projectId: string;
  payload: EventPayload<T>;
  /** When the producer wrote it (the producer's clock). */
  createdAt: Date;
}

/** One of the given types, as a discriminated union, so a handler's `switch (event.type)` narrows the payload. */
export type OutboxEventOf<T extends EventType> = { [K in T]: OutboxEvent<K> }[T];

/** An event to append: the producer's id is optional (a UUID is drawn when absent). */
export type NewOutboxEvent = { [K in EventType]: { id?: string; type: K; projectId: string; payload: EventPayload<K> } }[EventType];

/**
 * An event as it travels in a consumer's job: ids and the payload, as JSON. The payload is checked
 * against its type's contract when the job runs (consumer.ts), not here, so that an event of a
 * shape the consumer cannot read is recorded rather than retried.
 */
export const eventJobData = z.object({
  id: z.uuid(),
  type: z.string().min(1),
  projectId: z.uuid(),
  payload: z.unknown(),
  createdAt: z.iso.datetime({ offset: true }),
});

export type EventJobData = z.output<typeof eventJobData>;

/**
 * Event types written one per unit of high-volume work (a conversion): the relay carries a round's
 * events of these types to each consumer in ONE job, not one job per event (a job costs the producer,
 * Redis and the consumer's worker more than most handlers do). The consumer still applies, records
 * and retries each event on its own (consumer.ts), so handlers see no difference.
 */
export const BATCHED_EVENT_TYPES: ReadonlySet<string> = new Set<EventType>(['claim.conversion.processed']);

/** Events of the batched types, as one job carries them to one consumer (in the order they were written). */
export const eventBatchJobData = z.object({ events: z.array(eventJobData).min(1) });

export type EventBatchJobData = z.output<typeof eventBatchJobData>;

/**
 * A batch as the relay queues it: its events as JSON, deflated, in base64 (`first` and `count` name
 * it, as the job id does). A relay round's batch goes to every consumer of its type, and as plain
 * job data each copy was serialised again and written to Redis and read back whole (about 1 kB per
 * conversion); packed, it is serialised and compressed once per round and about a tenth of the
 * bytes travel. The workers' schema (consumerJobData) unpacks it into the batch form.
 */
export const eventPackJobData = z.object({ first: z.uuid(), count: z.number().int().min(1), packed: z.string().min(1) }).strict();

export type EventPackJobData = z.output<typeof eventPackJobData>;

/**
 * The events of a packed batch, checked as eventJobData checks each (two UUIDs and a time apiece, up to
 * 1,000 events a job, in every consumer of the type). Compiled (zod's AOT fast path): it accepts, refuses
 * and answers exactly as the runtime parser does (a refused batch is parsed again by the runtime for its
 * issues), in about half its time (bench/unpack-events.ts).
 */
export const packedEvents = z.compile(z.array(eventJobData).min(1));

/** The packed form of a batch (for the relay), read back by consumerJobData. */
export function packEvents(events: readonly EventJobData[]): EventPackJobData {
  if (events.length === 0) throw new Error('an empty batch of events has nothing to pack');
  return packEventsJson(events[0]!.id, events.length, JSON.stringify(events));
}

/** packEvents of a batch already written as a JSON array of `count` events, the first with id `first`. */
export function packEventsJson(first: string, count: number, json: string): EventPackJobData {
  // Level 1: the JSON of a batch repeats its keys and values, so the fastest level already takes it to a tenth.
  return { first, count, packed: deflateRawSync(json, { level: 1 }).toString('base64') };
}

/** The batch a packed job carries; a job that does not unpack to the events it names is invalid job data. */
const unpackedBatch = eventPackJobData.transform((pack, context): EventBatchJobData => {
  let unpacked: unknown;
  try {
    unpacked = JSON.parse(inflateRawSync(Buffer.from(pack.packed, 'base64')).toString('utf8'));
  } catch (error) {
    context.issues.push({ code: 'custom', message: `the packed events do not unpack: ${(error as Error).message}`, input: pack });
    return z.NEVER;
  }
  const events = packedEvents.safeParse(unpacked);
  if (!events.success || events.data.length !== pack.count || events.data[0]!.id !== pack.first) {
    context.issues.push({ code: 'custom', message: `the packed events are not the ${pack.count} events from ${pack.first}`, input: pack });
    return z.NEVER;
  }
  return { events: events.data };
});

/** What a consumer's job carries: one event, or a batch of events of the batched types (packed by the relay, unpacked here). */
export const consumerJobData = z.union([eventJobData, eventBatchJobData, unpackedBatch]);

export type ConsumerJobData = z.output<typeof consumerJobData>;

/** The events a consumer's job carries, in order. */
export function eventsOfJob(data: ConsumerJobData): EventJobData[] {
  return 'events' in data ? data.events : [data];
}
