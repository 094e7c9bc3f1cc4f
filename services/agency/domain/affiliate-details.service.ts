import { groupBy } from '../../rules/group-by';
import type { Clock } from '../../platform/clock';
import type { AffiliateListRecord } from '../repositories/affiliate-list';
import type { AffiliateRecord } from '../repositories/affiliate-record';
import type { MasterRelation, MasterRepository } from '../repositories/master.repository';
import type { AffiliateRefRecord } from '../repositories/referral.repository';
import type { SegmentTierRepository } from '../repositories/segment-tier.repository';
import type { TierProtectionRecord, TierProtectionRepository } from '../repositories/tier-protection.repository';
import { higherTier, type TierLookup, type TierView } from './audience-directory';
import { daysRemaining } from './tier-protection.service';

export interface TierProtectionView {
  tierId: string;
  expiresAt: Date;
  /** Whole days left, rounded up. */
  daysRemaining: number;
}

/** An affiliate with its place among masters and its tiers now (proto: referral.agency.v1.Affiliate). */
export interface AffiliateView extends AffiliateRecord {
  master: AffiliateRefRecord | null;
  isMaster: boolean;
  /** The tier its memberships qualify it for (the agency's projection of the audience service's tiers and entries). */
  currentTier: TierView | null;
  /** The tier in force: the higher of the current and the protected one while protection lasts. */
  activeTier: TierView | null;
  tierProtection: TierProtectionView | null;
}

/** The active tier: the higher of the current and the protected tier while protection lasts, else the current. */
export function activeTier(current: TierView | null, protectedTier: TierView | null): TierView | null {
  return higherTier(current, protectedTier);
}

/**
 * Completes affiliates for their answers: master and is_master from the agency's own tables, tiers
 * from its tier projection (one read per page, never one per affiliate): the same tables and rule
 * attribution pays by (RESOLVE_ATTRIBUTION_SQL), so the tier an affiliate body shows is the tier a
 * conversion of that moment is paid at, and no answer waits on the audience service.
 */
export class AffiliateDetailsService {
  constructor(
    private readonly masters: MasterRepository,
    private readonly protections: TierProtectionRepository,
    private readonly tiers: SegmentTierRepository,
    private readonly clock: Clock,
  ) {}

  async describe(records: readonly AffiliateRecord[]): Promise<AffiliateView[]> {
    if (records.length === 0) return [];
    const now = this.clock.now();
    const ids = records.map((record) => record.id);
    const [relations, protections] = await Promise.all([this.masters.relationsOf(ids), this.protections.inForce(ids, now)]);
    return this.describeWith(records, relations, protections, await this.tiersOf(records, protections), now);
  }

  /** As describe, for records read with their relations, protections and tiers (the list's page statement): nothing more is read. */
  describeListed(records: readonly AffiliateListRecord[]): AffiliateView[] {
    const relations = new Map(records.map((record) => [record.id, record.relation]));
    const protections = new Map(records.flatMap((record) => (record.protection ? [[record.id, record.protection] as const] : [])));
    const tiers: TierLookup = {
      current: records.map((record) => record.currentTier),
      byId: new Map(records.flatMap((record) => (record.protectedTier ? [[record.protectedTier.id, record.protectedTier] as const] : []))),
    };
    return this.describeWith(records, relations, protections, tiers, this.clock.now());
  }

  private describeWith(
    records: readonly AffiliateRecord[],
    relations: Map<string, MasterRelation>,
    protections: Map<string, TierProtectionRecord>,
    tiers: TierLookup,
    now: Date,
  ): AffiliateView[] {
    return records.map((record, index) => {
      const protection = protections.get(record.id);
      const current = tiers.current[index] ?? null;
      const protectedTier = protection ? (tiers.byId.get(protection.tierId) ?? null) : null;
      const relation = relations.get(record.id);
      // Field by field, not a spread of the record: this runs for every item of every list page.
      return {
        id: record.id,
        projectId: record.projectId,
        user: record.user,
        name: record.name,
        region: record.region,
        status: record.status,
        codes: record.codes,
        joinedAt: record.joinedAt,
        updatedAt: record.updatedAt,
        suspendedAt: record.suspendedAt,
        suspensionReason: record.suspensionReason,
        flaggedAt: record.flaggedAt,
        flagReason: record.flagReason,
        master: relation?.master ?? null,
        isMaster: relation?.isMaster ?? false,
        currentTier: current,
        activeTier: activeTier(current, protectedTier),
        tierProtection: protection
          ? { tierId: protection.tierId, expiresAt: protection.expiresAt, daysRemaining: daysRemaining(protection.expiresAt, now) }
          : null,
      };
    });
  }

  async describeOne(record: AffiliateRecord): Promise<AffiliateView> {
    const [view] = await this.describe([record]);
    return view!;
  }

  /** Current tiers of every affiliate (in order) and the protected tiers, per project: one read of the projection each. */
  private async tiersOf(records: readonly AffiliateRecord[], protections: Map<string, TierProtectionRecord>): Promise<TierLookup> {
    const byProject = groupBy(records.keys(), (index) => records[index]!.projectId);
    const lookup: TierLookup = { current: new Array<TierView | null>(records.length).fill(null), byId: new Map() };
    for (const [projectId, indexes] of byProject) {
      const tierIds = [...new Set(indexes.flatMap((index) => protections.get(records[index]!.id)?.tierId ?? []))];
      const answer = await this.tiers.tiers(
        projectId,
        indexes.map((index) => records[index]!.user),
        tierIds,
      );
      indexes.forEach((index, position) => (lookup.current[index] = answer.current[position] ?? null));
      for (const [id, tier] of answer.byId) lookup.byId.set(id, tier);
    }
    return lookup;
  }
}
