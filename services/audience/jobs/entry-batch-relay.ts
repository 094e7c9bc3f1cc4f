import type { OutboxJobKind } from '../../platform/job-relay';
import type { EntryBatchService } from '../domain/entry-batch.service';
import { type ApplyEntryBatchData, applyEntryBatchJob } from './apply-entry-batch.job';

/**
 * Entry batches as outbox-driven work: a batch is stored in PostgreSQL before it is queued, so
 * the relay finds every unfinished batch there and makes sure its job exists; a batch whose job
 * keeps failing is marked failed rather than left `queued` or `active`.
 */
export function entryBatchRelay(batches: EntryBatchService): OutboxJobKind<ApplyEntryBatchData> {
  return {
    job: applyEntryBatchJob,
    findPending: async (limit) => (await batches.unfinished(limit)).map((batchId) => ({ batchId })),
    giveUp: ({ batchId }) => batches.fail(batchId),
  };
}
