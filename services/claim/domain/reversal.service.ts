import type { Clock } from '../../platform/clock';
import type { Logger } from '../../platform/logger';
import type { OutboxWaker } from '../../platform/outbox/relay';
import { ConflictError, type FieldViolation, invalidFields, NotFoundError } from '../../rules/errors';
import { type ReversalRecord, type ReversalRepository, WHOLE_BPS } from '../repositories/reversal.repository';
import { MAX_CONVERSION_ID_LENGTH } from './conversion-input';
import { requireProjectId } from './project';

/** The longest reversal id (the caller's deduplication key) and reason kept. */
export const MAX_REVERSAL_ID_LENGTH = 255;
export const MAX_REVERSAL_REASON_LENGTH = 500;

export interface ReverseInput {
  conversionId: string;
  reversalId: string;
  reason: string;
  /** Basis points of the whole conversion; absent: all of it (10000). */
  shareBps?: number | undefined;
  /** The API key that reverses. */
  reversedBy: string;
}

/**
 * Reversals of processed conversions (a refund, an unwound trade): a share of every movement comes
 * back as new rows, wherever its money is (ReversalRepository). The caller's `reversal_id` makes a
 * retry harmless: the same id and body answer the reversal made the first time; another body under
 * it is refused, as is a share that would take the conversion's reversals past the whole of it.
 */
export class ReversalService {
  constructor(
    private readonly reversals: ReversalRepository,
    private readonly outbox: OutboxWaker,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async reverse(projectId: string, input: ReverseInput): Promise<{ reversal: ReversalRecord; replayed: boolean }> {
    requireProjectId(projectId);
    const shareBps = input.shareBps ?? WHOLE_BPS;
    const violations: FieldViolation[] = [];
    if (input.conversionId.length === 0 || input.conversionId.length > MAX_CONVERSION_ID_LENGTH) {
      violations.push({ field: 'id', reason: `must be a conversion id of 1 to ${MAX_CONVERSION_ID_LENGTH} characters` });
    }
    if (input.reversalId.length === 0 || input.reversalId.length > MAX_REVERSAL_ID_LENGTH) {
      violations.push({
        field: 'reversal_id',
        reason: `must be 1 to ${MAX_REVERSAL_ID_LENGTH} characters: your deduplication key for this reversal`,
      });
    }
    if (input.reason.trim().length === 0 || input.reason.length > MAX_REVERSAL_REASON_LENGTH) {
      violations.push({ field: 'reason', reason: `must say why, in 1 to ${MAX_REVERSAL_REASON_LENGTH} characters` });
    }
    if (!Number.isInteger(shareBps) || shareBps < 1 || shareBps > WHOLE_BPS) {
      violations.push({ field: 'share_bps', reason: `must be a whole number of basis points from 1 to ${WHOLE_BPS} (all of the conversion)` });
    }
    if (input.reversedBy.length === 0) violations.push({ field: 'reversed_by', reason: 'is required: the API key that reverses' });
    if (violations.length > 0) throw invalidFields(violations);

    const request = {
      projectId,
      conversionId: input.conversionId,
      reversalId: input.reversalId,
      shareBps,
      reason: input.reason,
      reversedBy: input.reversedBy,
    };
    const outcome = await this.reversals.reverse(request, this.clock.now());
    switch (outcome.kind) {
      case 'conversion_not_found':
        throw new NotFoundError('CONVERSION_NOT_FOUND', 'no conversion with this id in this project; nothing was reversed');
      case 'not_processed':
        throw new ConflictError(
          'CONVERSION_NOT_PROCESSED',
          'the conversion is not processed (accepted and not paid yet, or failed): it paid nothing and counts in no figure, so there is nothing to reverse; a conversion waiting to be paid can be reversed once GET /api/v1/conversions/{id} says processed or no_terms',
        );
      case 'reversal_id_reused':
        throw new ConflictError(
          'REVERSAL_ID_REUSED',
          `reversal_id ${input.reversalId} was used for another reversal (conversion ${outcome.reversal.conversionId}, ${outcome.reversal.shareBps} bps); nothing was reversed`,
          [{ field: 'reversal_id', reason: 'already names a reversal with another conversion, share or reason' }],
        );
      case 'share_exceeded':
        throw new ConflictError(
          'REVERSAL_SHARE_EXCEEDED',
          `the conversion's reversals already take back ${outcome.reversedBps} of ${WHOLE_BPS} bps: at most ${WHOLE_BPS - outcome.reversedBps} more can be reversed; nothing was reversed`,
          [{ field: 'share_bps', reason: `must be at most ${WHOLE_BPS - outcome.reversedBps}` }],
        );
      case 'replayed':
        return { reversal: outcome.reversal, replayed: true };
      case 'reversed': {
        this.outbox.wake();
        const { reversal } = outcome;
        const debt = reversal.movements.reduce((sum, part) => sum + part.toDebt, 0n);
        this.logger.info(
          {
            project_id: projectId,
            conversion_id: reversal.conversionId,
            share_bps: shareBps,
            movements: reversal.movements.length,
            debt: debt.toString(),
          },
          'conversion reversed',
        );
        return { reversal, replayed: false };
      }
    }
  }

  async ofConversion(projectId: string, conversionId: string): Promise<ReversalRecord[]> {
    requireProjectId(projectId);
    return this.reversals.ofConversion(projectId, conversionId);
  }
}
