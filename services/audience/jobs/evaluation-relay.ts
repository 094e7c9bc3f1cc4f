import type { OutboxJobKind } from '../../platform/job-relay';
import type { SegmentEvaluationService } from '../domain/segment-evaluation.service';
import { type EvaluateSegmentData, evaluateSegmentJob } from './evaluate-segment.job';

/**
 * Evaluations as outbox-driven work: a request is stored in PostgreSQL before its job is queued,
 * so the relay finds every unfinished one there and makes sure its job exists; one whose job keeps
 * failing is marked failed rather than left `queued` or `active`.
 */
export function evaluationRelay(evaluations: SegmentEvaluationService): OutboxJobKind<EvaluateSegmentData> {
  return {
    job: evaluateSegmentJob,
    findPending: (limit) => evaluations.unfinished(limit),
    giveUp: ({ segmentId, requested }) => evaluations.fail(segmentId, requested),
  };
}
