import { withinMs } from '../../platform/deadline';
import type { Logger } from '../../platform/logger';
import type { QueueKit } from '../../platform/queue';
import type { TrackingBatchScheduler } from '../domain/tracking-event.service';
import { processTrackingBatchJob } from './process-tracking-batch.job';

/** Longest a request waits for Redis to take a batch's job (the relay queues it otherwise). */
const SCHEDULE_TIMEOUT_MS = 1_000;

/** Queues a stored batch's processing at once, so clicks and referrals follow within moments rather than at the relay's next pass. */
export class BullTrackingBatchScheduler implements TrackingBatchScheduler {
  constructor(
    private readonly queues: QueueKit,
    private readonly logger: Logger,
  ) {}

  /** The batch is safe in PostgreSQL; if Redis refuses it now, the relay queues it once Redis is back. */
  async schedule(batchId: string): Promise<void> {
    try {
      if (
        !this.queues.isAvailable() ||
        (await withinMs(this.queues.enqueue(processTrackingBatchJob, { batchId }), SCHEDULE_TIMEOUT_MS)) === undefined
      ) {
        this.logger.warn({ batch_id: batchId }, 'tracking events stored but not queued; the relay will queue them');
      }
    } catch (error) {
      this.logger.warn({ err: error, batch_id: batchId }, 'tracking events stored but not queued; the relay will queue them');
    }
  }
}
