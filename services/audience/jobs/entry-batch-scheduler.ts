import { withinMs } from '../../platform/deadline';
import type { QueueKit } from '../../platform/queue';
import type { EntryBatchScheduler } from '../domain/entry-batch.service';
import { applyEntryBatchJob } from './apply-entry-batch.job';

/** Longest single wait on queue events before the job is looked at again. */
const WAIT_SLICE_MS = 1_000;

export class BullEntryBatchScheduler implements EntryBatchScheduler {
  constructor(private readonly queues: QueueKit) {}

  isAvailable(): boolean {
    return this.queues.isAvailable();
  }

  async schedule(batchId: string, timeoutMs: number): Promise<boolean> {
    return (await withinMs(this.queues.enqueue(applyEntryBatchJob, { batchId }), timeoutMs)) !== undefined;
  }

  /**
   * Waits on BullMQ's queue events in short slices, so a missed event costs at most a slice,
   * and returns early when the job is gone (finished and cleaned up, or never queued) or Redis
   * cannot be asked: the caller then answers with what PostgreSQL says.
   */
  async waitUntilSettled(batchId: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const events = this.queues.queueEvents(applyEntryBatchJob.queue);
    const queue = this.queues.queue(applyEntryBatchJob.queue);
    try {
      while (Date.now() < deadline && this.queues.isAvailable()) {
        const job = await queue.getJob(batchId);
        if (!job || (await job.isCompleted()) || (await job.isFailed())) return;
        const settled = await job
          .waitUntilFinished(events, Math.min(WAIT_SLICE_MS, deadline - Date.now()))
          .then(() => true)
          .catch(async () => job.isFailed());
        if (settled) return;
      }
    } catch {
      // Redis went away while waiting: stop waiting, the batch's state is in PostgreSQL.
    }
  }
}
