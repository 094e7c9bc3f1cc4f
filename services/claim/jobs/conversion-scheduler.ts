import { withinMs } from '../../platform/deadline';
import type { Logger } from '../../platform/logger';
import type { QueueKit } from '../../platform/queue';
import type { ConversionScheduler } from '../domain/conversion.service';
import { payConversionsJob } from './pay-conversions.job';

/** Longest a request waits for Redis to take a batch's job (the relay queues it otherwise). */
const SCHEDULE_TIMEOUT_MS = 1_000;

export class BullConversionScheduler implements ConversionScheduler {
  constructor(
    private readonly queues: QueueKit,
    private readonly logger: Logger,
  ) {}

  /** The batch is safe in PostgreSQL; if Redis refuses it now, the relay queues it once Redis is back. */
  async schedule(batchId: string): Promise<void> {
    try {
      if (!this.queues.isAvailable() || (await withinMs(this.queues.enqueue(payConversionsJob, { batchId }), SCHEDULE_TIMEOUT_MS)) === undefined) {
        this.logger.warn({ batch_id: batchId }, 'conversions stored but not queued; the relay will queue them');
      }
    } catch (error) {
      this.logger.warn({ err: error, batch_id: batchId }, 'conversions stored but not queued; the relay will queue them');
    }
  }
}
