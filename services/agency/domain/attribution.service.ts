import { MAX_ATTRIBUTION_BATCH } from '../../rules/contract-limits';
import { DomainError, InvalidArgumentError, invalidFields } from '../../rules/errors';
import { normalizeIdentifier } from '../../rules/identifiers';
import type { AttributionQuery, AttributionRepository } from '../repositories/attribution.repository';
import type { AffiliateRefRecord } from '../repositories/referral.repository';
import { requireProjectId, type UserInput } from '../../rules/subject';
import type { AffiliateStatus, AttributionOutcome } from './vocabulary';

export interface AttributionItemInput {
  user?: UserInput | undefined;
  at?: Date | undefined;
}

/** Who earns from a conversion of one user at one moment (proto: referral.agency.v1.Attribution). */
export interface AttributionView {
  outcome: AttributionOutcome;
  affiliate: AffiliateRefRecord | null;
  code: string | null;
  referredAt: Date | null;
  /** At `at`; null when nobody had referred the user. */
  affiliateStatus: AffiliateStatus | null;
  master: AffiliateRefRecord | null;
  spreadBps: number;
  activeTierId: string | null;
  /** Whether the referring affiliate is flagged now (when answered, not at `at`): its new payouts wait for review. */
  affiliateFlagged: boolean;
  /** The share (bps of the affiliate's reward, 0..2000) of the referral's code that goes to the user as a rebate; 0: none. */
  userRebateRateBps: number;
  /**
   * The affiliate's upline at `at` (levels 2..4, docs/claims.md#referral-levels), those suspended then left out
   * (levels may skip); empty unless attributed.
   */
  ancestors: AncestorView[];
}

export interface AncestorView {
  level: 2 | 3 | 4;
  affiliate: AffiliateRefRecord;
}

/** One item's answer, or why this item (alone) could not be answered. */
export type AttributionResult = AttributionView | { error: DomainError };

const NOT_REFERRED: AttributionView = {
  outcome: 'not_referred',
  affiliate: null,
  code: null,
  referredAt: null,
  affiliateStatus: null,
  master: null,
  spreadBps: 0,
  activeTierId: null,
  affiliateFlagged: false,
  userRebateRateBps: 0,
  ancestors: [],
};

/**
 * Attribution (docs/affiliates.md): for each (user, at) of a project, the affiliate that had referred the
 * user by `at`, whether it was suspended at `at` (then nobody earns), its master and spread, and its
 * active tier, and its upline (referral levels 2..4). A batch is answered with one query, tiers included: they come from the agency's
 * projections of the audience service's events (eventually consistent, like the list's membership
 * filters), so attribution answers while the audience service is down. An invalid item fails alone.
 */
export class AttributionService {
  constructor(private readonly attributions: AttributionRepository) {}

  async resolveOne(projectIdInput: string, item: AttributionItemInput): Promise<AttributionView> {
    const projectId = requireProjectId(projectIdInput);
    const query = checkItem(item, '');
    const [row] = await this.resolveChecked(projectId, [query]);
    return row!;
  }

  async resolveBatch(projectIdInput: string, items: readonly AttributionItemInput[]): Promise<AttributionResult[]> {
    const projectId = requireProjectId(projectIdInput);
    if (items.length > MAX_ATTRIBUTION_BATCH) {
      throw new InvalidArgumentError('TOO_MANY_ITEMS', `at most ${MAX_ATTRIBUTION_BATCH} items per call`, [
        { field: 'items', reason: `has ${items.length}; the limit is ${MAX_ATTRIBUTION_BATCH}` },
      ]);
    }
    const results: AttributionResult[] = new Array(items.length);
    const valid: Array<{ index: number; query: AttributionQuery }> = [];
    items.forEach((item, index) => {
      try {
        valid.push({ index, query: checkItem(item, `items[${index}].`) });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        results[index] = { error };
      }
    });
    const views = await this.resolveChecked(
      projectId,
      valid.map((item) => item.query),
    );
    valid.forEach((item, position) => {
      results[item.index] = views[position]!;
    });
    return results;
  }

  private async resolveChecked(projectId: string, queries: AttributionQuery[]): Promise<AttributionView[]> {
    const rows = await this.attributions.resolve(projectId, queries);
    return rows.map((row) => {
      if (!row) return NOT_REFERRED;
      const suspended = row.suspendedAt;
      return {
        outcome: suspended ? 'affiliate_suspended' : 'attributed',
        affiliate: row.affiliate,
        code: row.code,
        referredAt: row.referredAt,
        affiliateStatus: suspended ? 'suspended' : 'active',
        master: row.master?.affiliate ?? null,
        spreadBps: row.master?.spreadBps ?? 0,
        activeTierId: row.activeTierId,
        affiliateFlagged: row.flagged,
        userRebateRateBps: row.userRebateRateBps,
        // A suspended level earns nothing and is left out; the chain above it still earns.
        ancestors: suspended ? [] : row.upline.filter((up) => !up.suspended).map(({ level, affiliate }) => ({ level, affiliate })),
      };
    });
  }
}

/** An item's user in canonical form and its moment, or the error naming the item's field. */
function checkItem(item: AttributionItemInput, prefix: string): AttributionQuery {
  if (!item.user) throw invalidFields([{ field: `${prefix}user`, reason: 'is required' }]);
  if (!item.at || Number.isNaN(item.at.getTime()))
    throw invalidFields([{ field: `${prefix}at`, reason: 'is required: the moment of the conversion' }]);
  const user = normalizeIdentifier(item.user.identifier, item.user.identifierType, `${prefix}user`);
  // The gRPC layer leaves a batch's items to this check (services/rules/canonical-ids.ts applies the
  // same rule to whole requests), so that one non-canonical id fails its item only.
  if (user.identifier !== item.user.identifier) {
    const field = `${prefix}user.identifier`;
    const reason = 'must be written in the canonical form of its type (lowercase)';
    throw new InvalidArgumentError('NON_CANONICAL_ID', `${field}: ${reason}`, [{ field, reason }]);
  }
  return { user, at: item.at };
}
