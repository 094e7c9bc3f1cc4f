import type { Clock } from '../../platform/clock';
import type { Logger } from '../../platform/logger';
import { invalidFields, type FieldViolation } from '../../rules/errors';
import type { MovementRecord, MovementRepository } from '../repositories/movement.repository';
import type { MovementStatusRepository } from '../repositories/movement-status.repository';
import { MAX_CONVERSION_ID_LENGTH } from './conversion-input';
import { requireProjectId } from './project';
import type { DecisionOutcome } from './vocabulary';

/** Conversions one decision may name. */
const MAX_DECISION_CONVERSIONS = 1_000;
/** The longest reason a decision keeps. */
const MAX_DECISION_REASON_LENGTH = 500;

export interface DecisionResult {
  conversionId: string;
  outcome: DecisionOutcome;
  /** The conversion's movements as they stand after the decision. */
  movements: MovementRecord[];
}

/**
 * An admin's decisions on movements waiting for approval (the terms' require_approval) or review,
 * per conversion, and the release of held movements whose hold has passed (the periodic job's step).
 * Both move money between pending and the open claim checks (MovementStatusRepository), never an amount.
 */
export class MovementDecisionService {
  constructor(
    private readonly statuses: MovementStatusRepository,
    private readonly movements: MovementRepository,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  approve(projectId: string, conversionIds: readonly string[], reason: string | undefined, decidedBy: string): Promise<DecisionResult[]> {
    return this.decide(projectId, conversionIds, reason, decidedBy, 'approve');
  }

  decline(projectId: string, conversionIds: readonly string[], reason: string | undefined, decidedBy: string): Promise<DecisionResult[]> {
    return this.decide(projectId, conversionIds, reason, decidedBy, 'decline');
  }

  /**
   * Releases held movements whose hold has passed, in transactions of at most `batch` movements,
   * until none is due: answers how many this run released.
   */
  async releaseDue(batch: number): Promise<number> {
    let released = 0;
    for (;;) {
      const now = this.clock.now();
      const count = await this.statuses.releaseDue(now, batch);
      released += count;
      if (count < batch) break;
    }
    if (released > 0) this.logger.info({ movements: released }, 'held movements released');
    return released;
  }

  private async decide(
    projectId: string,
    conversionIds: readonly string[],
    reason: string | undefined,
    decidedBy: string,
    kind: 'approve' | 'decline',
  ): Promise<DecisionResult[]> {
    requireProjectId(projectId);
    const violations: FieldViolation[] = [];
    if (conversionIds.length === 0 || conversionIds.length > MAX_DECISION_CONVERSIONS) {
      violations.push({ field: 'conversion_ids', reason: `must name 1 to ${MAX_DECISION_CONVERSIONS} conversions` });
    }
    conversionIds.forEach((id, index) => {
      if (id.length === 0 || id.length > MAX_CONVERSION_ID_LENGTH) {
        violations.push({ field: `conversion_ids[${index}]`, reason: `must be a conversion id of 1 to ${MAX_CONVERSION_ID_LENGTH} characters` });
      }
    });
    if (reason !== undefined && reason.length > MAX_DECISION_REASON_LENGTH) {
      violations.push({ field: 'reason', reason: `must be at most ${MAX_DECISION_REASON_LENGTH} characters` });
    }
    if (decidedBy.length === 0) violations.push({ field: 'decided_by', reason: 'is required: the API key that decides' });
    if (violations.length > 0) throw invalidFields(violations);
    const ids = [...new Set(conversionIds)];
    const decision = kind === 'approve' ? { kind } : { kind, reason: reason ?? null };
    const outcomes = await this.statuses.decide(projectId, ids, decision, { at: this.clock.now(), by: decidedBy });
    const changed = [...outcomes.values()].filter((outcome) => outcome === 'approved' || outcome === 'declined').length;
    if (changed > 0) this.logger.info({ project_id: projectId, decision: kind, conversions: changed, decided_by: decidedBy }, 'movements decided');
    const movements = await this.movements.ofConversions(projectId, ids);
    return ids.map((id) => ({ conversionId: id, outcome: outcomes.get(id)!, movements: movements.get(id) ?? [] }));
  }
}
