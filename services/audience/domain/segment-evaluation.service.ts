import type { Clock } from '../../platform/clock';
import { FailedPreconditionError, NotFoundError } from '../../rules/errors';
import { isUuid } from '../../rules/ids';
import type { Logger } from '../../platform/logger';
import type { OutboxWaker } from '../../platform/outbox/relay';
import type { MatchOutcome } from '../repositories/dynamic-entries.repository';
import type { EvaluationRecord, SegmentEvaluationRepository } from '../repositories/segment-evaluation.repository';
import type { SegmentRepository } from '../repositories/segment.repository';
import { type Condition, parseCondition } from './condition';
import { requireSegment } from './segment-lookup';

/** How evaluations reach the worker; implemented over BullMQ in ../jobs. */
export interface EvaluationScheduler {
  /** Queues the job of request `requested` of the segment's evaluation (a duplicate is a no-op). */
  schedule(segmentId: string, requested: number): Promise<void>;
}

/** What a failed evaluation says (the internal reason goes to the log). */
const FAILED_REASON = 'the evaluation could not be completed; start another';

/**
 * Dynamic matching: full evaluations of a segment, requested (stored first, then
 * queued) and run by the worker; and incremental matching of the users whose inputs changed
 * (the pending table) against every dynamic segment of their project.
 */
export class SegmentEvaluationService {
  constructor(
    private readonly segments: SegmentRepository,
    private readonly evaluations: SegmentEvaluationRepository,
    private readonly scheduler: EvaluationScheduler,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly outbox: OutboxWaker,
  ) {}

  /** POST .../evaluate: a full evaluation of a dynamic segment, queued. */
  async start(projectId: string, segmentId: string): Promise<EvaluationRecord> {
    const segment = await requireSegment(this.segments, projectId, segmentId);
    if (segment.conditionJson === null) {
      throw new FailedPreconditionError(
        'AUDIENCE_NOT_DYNAMIC',
        'this audience has no condition, so there is nothing to evaluate; give it a condition first',
      );
    }
    // Stored first, then queued.
    const requested = await this.evaluations.request(projectId, segmentId, this.clock.now());
    if (requested !== undefined) await this.enqueue(segmentId, requested);
    return (await this.evaluations.find(projectId, segmentId))!;
  }

  /**
   * Queues the job of a request already committed (by `request`, or with the segment's create or
   * condition change). If Redis refuses the job now, the relay queues it: the request is in PostgreSQL.
   */
  async enqueue(segmentId: string, requested: number): Promise<void> {
    try {
      await this.scheduler.schedule(segmentId, requested);
    } catch (error) {
      this.logger.warn({ err: error, segment_id: segmentId }, 'evaluation stored but not queued; the relay will queue it');
    }
  }

  async get(projectId: string, segmentId: string): Promise<EvaluationRecord> {
    const evaluation = isUuid(segmentId) ? await this.evaluations.find(projectId, segmentId) : undefined;
    if (evaluation) return evaluation;
    await requireSegment(this.segments, projectId, segmentId);
    throw new NotFoundError('EVALUATION_NOT_FOUND', 'this audience has not been evaluated: only an audience with a condition is');
  }

  /** The worker's step; idempotent: a job that is not the latest request, or already done, does nothing. */
  async run(segmentId: string, requested: number): Promise<MatchOutcome | undefined> {
    if (!(await this.evaluations.start(segmentId, requested, this.clock.now()))) return undefined;
    const outcome = await this.evaluations.evaluate(segmentId, requested, this.at(), parseStored, () => this.clock.now());
    if (outcome) {
      this.logger.info({ segment_id: segmentId, ...outcome }, 'segment evaluated');
      if (outcome.added > 0 || outcome.removed > 0) this.outbox.wake();
    }
    return outcome;
  }

  async fail(segmentId: string, requested: number): Promise<void> {
    await this.evaluations.markFailed(segmentId, requested, FAILED_REASON, this.clock.now());
  }

  unfinished(limit: number): Promise<Array<{ segmentId: string; requested: number }>> {
    return this.evaluations.findUnfinished(limit);
  }

  /**
   * Incremental matching: up to `limit` users of the project waiting in the pending table, claimed
   * and matched against each of its dynamic segments in one transaction. Undefined when none was
   * left to claim (another pass has them, or there are none).
   */
  async matchPending(projectId: string, limit: number): Promise<{ users: number; changed: number } | undefined> {
    const outcome = await this.evaluations.matchPending(projectId, limit, this.at(), parseStored);
    if (outcome && outcome.changed > 0) this.outbox.wake();
    return outcome;
  }

  private at(): { now: Date; today: string } {
    const now = this.clock.now();
    return { now, today: now.toISOString().slice(0, 10) };
  }
}

/** A stored condition was checked when written; one that no longer parses is a bug, not input. */
function parseStored(json: string): Condition {
  const parsed = parseCondition(JSON.parse(json));
  if (!parsed.condition) throw new Error(`a stored condition does not parse: ${parsed.violations.map((v) => `${v.field} ${v.reason}`).join('; ')}`);
  return parsed.condition;
}
