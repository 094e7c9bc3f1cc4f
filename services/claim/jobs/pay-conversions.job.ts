import { z } from 'zod';
import type { JobDefinition, JobProcessor } from '../../platform/queue';
import type { PayoutService } from '../domain/payout.service';

export interface PayConversionsData {
  batchId: string;
}

/** Pays one stored batch of conversions. The job id is the batch id: queued once, paid once. */
export const payConversionsJob: JobDefinition<PayConversionsData> & { jobId: (data: PayConversionsData) => string } = {
  queue: 'claim-pay-conversions',
  data: z.object({ batchId: z.uuid() }),
  jobId: ({ batchId }) => batchId,
};

export function payConversions(payouts: PayoutService): JobProcessor<PayConversionsData> {
  // A failure is BullMQ's to retry; when retries and the relay's requeues are spent, the relay gives
  // the batch up (conversion-batch-relay.ts), never the job itself, so a redelivery can still pay it.
  return ({ batchId }) => payouts.payBatch(batchId);
}
