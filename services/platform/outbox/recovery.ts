import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { OutboxJobKind } from '../job-relay';
import type { QueueKit } from '../queue';
import { type EventConsumer, recordOutcome } from './consumer';
import { type ConsumerJobData, eventsOfJob } from './event';
import type { OutboxTables } from './tables';

/**
 * A consumer's failed jobs as work for the job relay (services/platform/job-relay.ts): a job that
 * failed for good (its retries spent, or stalled after its process died twice) is put back with
 * fresh attempts, up to RELAY_MAX_REQUEUES times; then the event is recorded as failed in
 * processed_events (a person can see it, and a later delivery tries again) and its job removed.
 */
export function failedEventRecovery<DB extends OutboxTables>(
  db: Kysely<DB>,
  queues: QueueKit,
  consumer: Pick<EventConsumer<DB>, 'name' | 'job'>,
  clock: Clock,
): OutboxJobKind<ConsumerJobData> {
  return {
    job: consumer.job,
    findPending: (limit) => queues.failedPayloads(consumer.job, limit),
    giveUp: async (data, reason) => {
      // Of a batch, only the events not applied yet are recorded as failed (recordOutcome keeps what is there).
      for (const event of eventsOfJob(data)) {
        await recordOutcome(db, consumer.name, event, 'failed', `its job kept failing: ${reason}`.slice(0, 2_000), clock.now());
      }
      await queues.remove(consumer.job, consumer.job.jobId(data));
    },
  };
}
