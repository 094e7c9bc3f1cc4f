import { z } from 'zod';
import type { OutboxJobKind } from '../../platform/job-relay';
import type { JobDefinition, JobProcessor } from '../../platform/queue';
import type { TrackingProcessingService } from '../domain/tracking-processing.service';

interface ProcessTrackingBatchData {
  batchId: string;
}

/**
 * Applies one stored batch of tracking events (tracking_event_batches). The job id is the batch id:
 * queued once; the batch's row lock and processed_at make a redelivery change nothing.
 */
export const processTrackingBatchJob: JobDefinition<ProcessTrackingBatchData> & { jobId: (data: ProcessTrackingBatchData) => string } = {
  queue: 'agency-process-tracking-batch',
  data: z.object({ batchId: z.uuid() }),
  jobId: ({ batchId }) => batchId,
};

export function processTrackingBatch(processing: TrackingProcessingService): JobProcessor<ProcessTrackingBatchData> {
  return async ({ batchId }) => processing.apply(batchId);
}

/**
 * Batches as outbox-driven work: a batch is in PostgreSQL before anything is queued, so the relay finds
 * every unprocessed batch there and makes sure its job exists (after Redis lost it, or a crash); a batch
 * whose job keeps failing is given up (failed_at) rather than retried forever.
 */
export function trackingBatchRelay(processing: TrackingProcessingService): OutboxJobKind<ProcessTrackingBatchData> {
  return {
    job: processTrackingBatchJob,
    findPending: async (limit) => (await processing.pending(limit)).map((batchId) => ({ batchId })),
    giveUp: ({ batchId }, reason) => processing.fail(batchId, reason),
  };
}
