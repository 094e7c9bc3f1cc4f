import { withinMs } from './deadline';
import type { Logger } from './logger';
import type { JobDefinition, QueueKit } from './queue';

/** Longest a request waits for Redis to take a batch's job (the relay queues it otherwise). */
const SCHEDULE_TIMEOUT_MS = 1_000;

/**
 * Queues the job of a batch the request has just stored (claim's conversions, the agency's tracking
 * events) at once, so its work follows within moments rather than at the relay's next pass. The batch
 * is safe in PostgreSQL: if Redis refuses the job now, it is only logged, and the job relay
 * (job-relay.ts) queues it from the stored row once Redis is back.
 */
export class BatchJobScheduler {
  constructor(
    private readonly queues: QueueKit,
    private readonly job: JobDefinition<{ batchId: string }>,
    private readonly logger: Logger,
    /** What the batch holds, for the log line ("conversions", "tracking events"). */
    private readonly holds: string,
  ) {}

  async schedule(batchId: string): Promise<void> {
    try {
      if (!this.queues.isAvailable() || (await withinMs(this.queues.enqueue(this.job, { batchId }), SCHEDULE_TIMEOUT_MS)) === undefined) {
        this.logger.warn({ batch_id: batchId }, `${this.holds} stored but not queued; the relay will queue them`);
      }
    } catch (error) {
      this.logger.warn({ err: error, batch_id: batchId }, `${this.holds} stored but not queued; the relay will queue them`);
    }
  }
}
