import type { ConversionScheduler } from '../../../services/claim/domain/conversion.service';

/**
 * The claim domain's queue of stored batches, in memory: it writes down each batch it is given and
 * no worker reads it, so a test pays a batch itself (domain.payouts.payBatch, the job's step). The
 * BullMQ scheduler itself runs in the HTTP and fault tests.
 */
export class RecordingConversionScheduler implements ConversionScheduler {
  readonly scheduled: string[] = [];

  async schedule(batchId: string): Promise<void> {
    this.scheduled.push(batchId);
  }
}
