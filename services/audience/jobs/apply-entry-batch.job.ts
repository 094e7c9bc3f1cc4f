import { z } from 'zod';
import type { JobDefinition, JobProcessor } from '../../platform/queue';
import type { EntryBatchService } from '../domain/entry-batch.service';

export interface ApplyEntryBatchData {
  batchId: string;
}

/** Moves one stored batch into its segment. The job id is the batch id: queued once, applied once. */
export const applyEntryBatchJob: JobDefinition<ApplyEntryBatchData> & { jobId: (data: ApplyEntryBatchData) => string } = {
  queue: 'audience-apply-entry-batch',
  data: z.object({ batchId: z.uuid() }),
  jobId: ({ batchId }) => batchId,
};

export function applyEntryBatch(batches: EntryBatchService): JobProcessor<ApplyEntryBatchData> {
  return async ({ batchId }, job, handedBack) => {
    try {
      return await batches.apply(batchId);
    } catch (error) {
      // Retries are BullMQ's; only when the last one fails does the batch show as failed (and not
      // when the job was handed back at shutdown: the next process applies it).
      const attempts = job.opts.attempts ?? 1;
      if (job.attemptsMade + 1 >= attempts && !handedBack.aborted) await batches.fail(batchId);
      throw error;
    }
  };
}
