import { z } from 'zod';
import type { JobDefinition, JobProcessor } from '../../common/queue';
import type { EntryBatchService } from '../domain/entry-batch.service';

/**
 * The relay half of the outbox: batches are committed to PostgreSQL before they are queued,
 * so a batch whose job never reached Redis (or was lost with it) is found here and queued again.
 */
export const requeueStaleEntryBatchesJob: JobDefinition<Record<string, never>> = {
  queue: 'audience-requeue-stale-entry-batches',
  data: z.object({}).strict() as z.ZodType<Record<string, never>>,
};

export const REQUEUE_EVERY_MS = 60_000;

export function requeueStaleEntryBatches(batches: EntryBatchService, staleAfterMs: number): JobProcessor<Record<string, never>> {
  return async () => ({ requeued: await batches.requeueStale(staleAfterMs) });
}
