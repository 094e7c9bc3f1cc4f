import type { OutboxJobKind } from '../../platform/job-relay';
import type { PayoutService } from '../domain/payout.service';
import { type PayConversionsData, payConversionsJob } from './pay-conversions.job';

/**
 * Conversion batches as outbox-driven work: a batch is stored in PostgreSQL before it is queued, so
 * the relay finds every unfinished batch there and makes sure its job exists (after Redis lost it,
 * or never took it); a batch whose job keeps failing has its waiting conversions marked failed.
 */
export function conversionBatchRelay(payouts: PayoutService): OutboxJobKind<PayConversionsData> {
  return {
    job: payConversionsJob,
    findPending: async (limit) => (await payouts.unfinished(limit)).map((batchId) => ({ batchId })),
    giveUp: ({ batchId }) => payouts.failBatch(batchId),
  };
}
