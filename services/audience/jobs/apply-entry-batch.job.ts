import { z } from 'zod';
import type { JobDefinition, JobProcessor } from '../../common/queue';
import type { EntryBatchService } from '../domain/entry-batch.service';

export interface ApplyEntryBatchData {
  batchId: string;
}

/** Moves one stored batch into its segment. The job id is the batch id: queued once, applied once. */
export const applyEntryBatchJob: JobDefinition<ApplyEntryBatchData> = {
  queue: 'audience-apply-entry-batch',
  data: z.object({ batchId: z.uuid() }),
};

export function applyEntryBatch(batches: EntryBatchService): JobProcessor<ApplyEntryBatchData> {
  return async ({ batchId }, job) => {
    try {
      return await batches.apply(batchId);
    } catch (error) {
      // Retries are BullMQ's; only when the last one fails does the batch show as failed.
      const attempts = job.opts.attempts ?? 1;
      if (job.attemptsMade + 1 >= attempts) await batches.fail(batchId, 'the batch could not be applied; submit it again');
      throw error;
    }
  };
}
