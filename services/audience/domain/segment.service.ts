import type { Clock } from '../../platform/clock';
import type { OutboxWaker } from '../../platform/outbox/relay';
import { AlreadyExistsError, InvalidArgumentError } from '../../rules/errors';
import { type Page } from '../../rules/pagination';
import {
  type SegmentRecord,
  type SegmentChanges,
  SegmentNameTaken,
  type SegmentRepository,
  type SegmentWrite,
  TierRankTaken,
} from '../repositories/segment.repository';
import { checkCondition, checkDescription, checkName, checkTierRank, LIMITS, throwIfInvalid } from './segment-fields';
import { requireSegment, segmentNotFound } from './segment-lookup';

export interface SegmentInput {
  name: string;
  description?: string | null;
  conditionJson?: string | null;
  tierRank?: number | null;
}

/** The fields an update may name; a named field left unset is cleared. */
export const UPDATABLE_SEGMENT_FIELDS = ['name', 'description', 'condition_json', 'tier_rank'] as const;

export class SegmentService {
  constructor(
    private readonly segments: SegmentRepository,
    private readonly clock: Clock,
    private readonly outbox: OutboxWaker,
    /** Told, after the commit, of the evaluation requested with a segment's write: queues its job. */
    private readonly evaluationRequested: (segmentId: string, requested: number) => Promise<void>,
  ) {}

  async create(projectId: string, input: SegmentInput): Promise<SegmentRecord> {
    const name = checkName(input.name);
    const description = checkDescription(input.description, LIMITS.segmentDescriptionLength);
    const condition = checkCondition(input.conditionJson);
    const tierRank = checkTierRank(input.tierRank);
    throwIfInvalid([...name.violations, ...description.violations, ...condition.violations, ...tierRank.violations]);
    let created: SegmentWrite;
    try {
      created = await this.segments.insert({
        projectId,
        name: name.value,
        description: description.value,
        conditionJson: condition.value,
        tierRank: tierRank.value,
        // A dynamic segment is evaluated from the start.
        requestEvaluation: condition.value !== null,
        now: this.clock.now(),
      });
    } catch (error) {
      throw translateTaken(error);
    }
    await this.queueEvaluation(created);
    return created.segment;
  }

  get(projectId: string, segmentId: string): Promise<SegmentRecord> {
    return requireSegment(this.segments, projectId, segmentId);
  }

  list(projectId: string, page: Page): Promise<{ records: SegmentRecord[]; total: number }> {
    return this.segments.list(projectId, page);
  }

  async update(projectId: string, segmentId: string, mask: string[], input: Partial<SegmentInput>): Promise<SegmentRecord> {
    const unknown = mask.filter((path) => !(UPDATABLE_SEGMENT_FIELDS as readonly string[]).includes(path));
    if (unknown.length > 0) {
      throw new InvalidArgumentError(
        'VALIDATION_FAILED',
        `cannot update ${unknown.join(', ')}`,
        unknown.map((field) => ({ field, reason: 'is not updatable' })),
      );
    }
    const existing = await requireSegment(this.segments, projectId, segmentId);
    if (mask.length === 0) return existing;

    const changes: SegmentChanges = { now: this.clock.now() };
    const violations = [];
    if (mask.includes('name')) {
      if (input.name === undefined || input.name === null) {
        violations.push({ field: 'name', reason: 'must not be empty' });
      } else {
        const name = checkName(input.name);
        violations.push(...name.violations);
        changes.name = name.value;
      }
    }
    if (mask.includes('description')) {
      const description = checkDescription(input.description, LIMITS.segmentDescriptionLength);
      violations.push(...description.violations);
      changes.description = description.value;
    }
    if (mask.includes('condition_json')) {
      const condition = checkCondition(input.conditionJson);
      violations.push(...condition.violations);
      changes.conditionJson = condition.value;
    }
    if (mask.includes('tier_rank')) {
      const tierRank = checkTierRank(input.tierRank);
      violations.push(...tierRank.violations);
      changes.tierRank = tierRank.value;
    }
    throwIfInvalid(violations);
    // Also when the condition was cleared: the dynamic entries it made then leave.
    changes.requestEvaluation = changes.conditionJson !== undefined && (changes.conditionJson !== null || existing.conditionJson !== null);
    let updated: SegmentWrite | undefined;
    try {
      updated = await this.segments.update(projectId, segmentId, changes);
    } catch (error) {
      throw translateTaken(error);
    }
    if (!updated) throw segmentNotFound();
    await this.queueEvaluation(updated);
    return updated.segment;
  }

  private async queueEvaluation(written: SegmentWrite): Promise<void> {
    // A tier's write carries an event for the agency's tier projection (segment.repository.ts): sent at once.
    if (written.tierEventWritten) this.outbox.wake();
    if (written.evaluationRequested !== undefined) await this.evaluationRequested(written.segment.id, written.evaluationRequested);
  }

  async delete(projectId: string, segmentId: string): Promise<void> {
    await requireSegment(this.segments, projectId, segmentId);
    if (!(await this.segments.delete(projectId, segmentId, this.clock.now()))) throw segmentNotFound();
    this.outbox.wake();
  }
}

function translateTaken(error: unknown): unknown {
  if (error instanceof SegmentNameTaken) {
    return new AlreadyExistsError('AUDIENCE_NAME_TAKEN', 'an audience with this name already exists in this project', [
      { field: 'name', reason: 'is already used by another audience' },
    ]);
  }
  if (error instanceof TierRankTaken) {
    return new AlreadyExistsError(
      'TIER_RANK_TAKEN',
      'another audience of this project already has this tier rank; give it another rank, or clear that one first',
      [{ field: 'tier_rank', reason: 'is already the rank of another audience in this project' }],
    );
  }
  return error;
}
