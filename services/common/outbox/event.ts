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

/** What a consumer's job carries: one event, or a batch of events of the batched types. */
export const consumerJobData = z.union([eventJobData, eventBatchJobData]);

export type ConsumerJobData = z.output<typeof consumerJobData>;

/** The events a consumer's job carries, in order. */
export function eventsOfJob(data: ConsumerJobData): EventJobData[] {
  return 'events' in data ? data.events : [data];
}
