import type { EntryBatchScheduler } from '../../../services/audience/domain/entry-batch.service';
import type { EvaluationScheduler } from '../../../services/audience/domain/segment-evaluation.service';

/**
 * The audience domain's queues, in memory, for a harness in which no audience worker runs (the
 * agency's): what was scheduled is written down and nothing applies it. The BullMQ schedulers run
 * in test/medium/audience and the HTTP and fault tests.
 */
export class RecordingEntryBatchScheduler implements EntryBatchScheduler {
  readonly scheduled: string[] = [];

  isAvailable(): boolean {
    return true;
  }

  async schedule(batchId: string): Promise<boolean> {
    this.scheduled.push(batchId);
    return true;
  }

  /** No worker will apply the batch: waiting would only pass the time, so the caller answers with what PostgreSQL says. */
  async waitUntilSettled(): Promise<void> {}
}

export class RecordingEvaluationScheduler implements EvaluationScheduler {
  readonly scheduled: Array<{ segmentId: string; requested: number }> = [];

  async schedule(segmentId: string, requested: number): Promise<void> {
    this.scheduled.push({ segmentId, requested });
  }
}
