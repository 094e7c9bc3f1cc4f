import { z } from 'zod';
import type { JobDefinition, JobProcessor, QueueKit } from '../../platform/queue';
import type { EvaluationScheduler, SegmentEvaluationService } from '../domain/segment-evaluation.service';

export interface EvaluateSegmentData {
  segmentId: string;
  /** The request this job evaluates: a job of an older request steps aside. */
  requested: number;
}

/** A full evaluation of one dynamic segment. One job per request: queued once, run once. */
export const evaluateSegmentJob: JobDefinition<EvaluateSegmentData> & { jobId: (data: EvaluateSegmentData) => string } = {
  queue: 'audience-evaluate-segment',
  data: z.object({ segmentId: z.uuid(), requested: z.number().int().positive() }),
  jobId: ({ segmentId, requested }) => `${segmentId}.${requested}`,
};

export function evaluateSegment(evaluations: SegmentEvaluationService): JobProcessor<EvaluateSegmentData> {
  return async ({ segmentId, requested }, job, handedBack) => {
    try {
      return await evaluations.run(segmentId, requested);
    } catch (error) {
      // Retries are BullMQ's; only when the last one fails does the evaluation show as failed (and
      // not when the job was handed back at shutdown: the next process runs it).
      const attempts = job.opts.attempts ?? 1;
      if (job.attemptsMade + 1 >= attempts && !handedBack.aborted) await evaluations.fail(segmentId, requested);
      throw error;
    }
  };
}

export class BullEvaluationScheduler implements EvaluationScheduler {
  constructor(private readonly queues: QueueKit) {}

  async schedule(segmentId: string, requested: number): Promise<void> {
    await this.queues.enqueue(evaluateSegmentJob, { segmentId, requested });
  }
}
