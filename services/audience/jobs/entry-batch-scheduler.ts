import type { QueueKit } from '../../common/queue';
import type { EntryBatchScheduler } from '../domain/entry-batch.service';
import { applyEntryBatchJob } from './apply-entry-batch.job';

/** Longest single wait on queue events before the job is looked at again. */
const WAIT_SLICE_MS = 1_000;

export class BullEntryBatchScheduler implements EntryBatchScheduler {
  constructor(private readonly queues: QueueKit) {}

  async schedule(batchId: string): Promise<void> {
    await this.queues.enqueue(applyEntryBatchJob, { batchId }, { jobId: batchId });
  }

  /**
   * Waits on BullMQ's queue events in short slices, so a missed event costs at most a slice,
   * and returns early when the job is gone (finished and cleaned up, or never queued).
   */
  async waitUntilSettled(batchId: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const events = this.queues.queueEvents(applyEntryBatchJob.queue);
    const queue = this.queues.queue(applyEntryBatchJob.queue);
    while (Date.now() < deadline) {
      const job = await queue.getJob(batchId);
      if (!job || (await job.isCompleted()) || (await job.isFailed())) return;
      const settled = await job
        .waitUntilFinished(events, Math.min(WAIT_SLICE_MS, deadline - Date.now()))
        .then(() => true)
        .catch(async () => job.isFailed());
      if (settled) return;
    }
  }
}
