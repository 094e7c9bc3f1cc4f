import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../services/platform/clock';
import type { IdentifierType } from '../../../services/rules/identifiers';
import type { AttributionLookup, AttributionSource, ReferralCodeUse } from '../../../services/claim/domain/attribution';
import type { AffiliateRef, ResolvedAttribution, UplineAffiliate, UplineLevel } from '../../../services/claim/domain/payouts';
import { Timeline, userKey } from './timeline';

type User = { identifier: string; identifierType: string };

interface FakeAffiliate {
  ref: AffiliateRef;
  code: string;
  suspended: Timeline<boolean>;
  master: Timeline<{ master: FakeAffiliate; spreadBps: number } | null>;
  tierId: Timeline<string | null>;
  /** Flagged now (the agency answers the flag as it stands when asked, not at the conversion's moment). */
  flagged: boolean;
  /** Its code's rebate rate now (bps of its reward): the agency answers the code's rate when asked, and the claim service freezes it. */
  rebateBps: number;
}

/**
 * The agency service as the claim domain asks it (AttributionSource), in memory: affiliates with
 * codes, referrals, suspensions, flags, masters and tiers, each from the test clock's moment on, and the
 * claim domain's questions answered as things stood at each conversion's moment. The agency's own
 * rules (who may refer whom, how tiers are projected) are tested in test/medium/agency; a test here
 * sets up the outcome it needs.
 */
export class FakeAgency implements AttributionSource {
  private readonly affiliates = new Map<string, FakeAffiliate>();
  private readonly byCode = new Map<string, FakeAffiliate>();
  private readonly referrals = new Map<string, { affiliate: FakeAffiliate; at: Date }>();

  constructor(private readonly clock: Clock) {}

  /** An affiliate with one referral code (codes are matched without regard to case, as the agency does). */
  createAffiliate(projectId: string, user: User, code: string): AffiliateRef {
    const ref: AffiliateRef = { id: randomUUID(), user: { identifier: user.identifier, identifierType: user.identifierType as IdentifierType } };
    const affiliate: FakeAffiliate = {
      ref,
      code,
      suspended: new Timeline(false),
      master: new Timeline(null),
      tierId: new Timeline(null),
      flagged: false,
      rebateBps: 0,
    };
    this.affiliates.set(userKey(projectId, user), affiliate);
    this.byCode.set(`${projectId}|${code.toLowerCase()}`, affiliate);
    return ref;
  }

  /** `user` referred by the code's affiliate from now on; undefined when the code does not refer the user (CreateReferral's refusals). */
  refer(projectId: string, user: User, code: string): Date | undefined {
    const affiliate = this.byCode.get(`${projectId}|${code.toLowerCase()}`);
    const now = this.clock.now();
    if (!affiliate || affiliate.suspended.at(now) || this.referrals.has(userKey(projectId, user))) return undefined;
    if (userKey(projectId, affiliate.ref.user) === userKey(projectId, user)) return undefined;
    this.referrals.set(userKey(projectId, user), { affiliate, at: now });
    return now;
  }

  /** Who referred the user (GetReferrer), or undefined. */
  referrerOf(projectId: string, user: User): AffiliateRef | undefined {
    return this.referrals.get(userKey(projectId, user))?.affiliate.ref;
  }

  suspend(projectId: string, user: User): void {
    this.affiliate(projectId, user).suspended.set(this.clock.now(), true);
  }

  /** Flags the affiliate (or unflags it, `false`): its new payouts wait for review while flagged. */
  flag(projectId: string, user: User, flagged = true): void {
    this.affiliate(projectId, user).flagged = flagged;
  }

  /** The rebate rate of the affiliate's code (affiliate_codes.user_rebate_rate_bps), from now on: 0..2000. */
  setRebateRate(projectId: string, user: User, bps: number): void {
    this.affiliate(projectId, user).rebateBps = bps;
  }

  /** The affiliate's master from now on (null: none). */
  setMaster(projectId: string, user: User, master: { user: User; spreadBps: number } | null): void {
    const value = master && { master: this.affiliate(projectId, master.user), spreadBps: master.spreadBps };
    this.affiliate(projectId, user).master.set(this.clock.now(), value);
  }

  /** The affiliate's active tier (an audience id) from now on (null: none). */
  setTier(projectId: string, user: User, tierId: string | null): void {
    this.affiliate(projectId, user).tierId.set(this.clock.now(), tierId);
  }

  async applyReferralCodes(projectId: string, uses: ReferralCodeUse[]): Promise<Array<Date | undefined>> {
    return uses.map((use) => this.refer(projectId, use.user, use.code));
  }

  async resolve(projectId: string, lookups: AttributionLookup[]): Promise<Array<ResolvedAttribution | null | Error>> {
    return lookups.map(({ user, at }) => {
      const referral = this.referrals.get(userKey(projectId, user));
      if (!referral || referral.at > at || referral.affiliate.suspended.at(at)) return null;
      const master = referral.affiliate.master.at(at);
      return {
        affiliate: referral.affiliate.ref,
        master: master && { affiliate: master.master.ref, spreadBps: master.spreadBps },
        upline: this.uplineOf(projectId, referral.affiliate, at),
        tierId: referral.affiliate.tierId.at(at),
        referredAt: referral.at,
        affiliateFlagged: referral.affiliate.flagged,
        rebateBps: referral.affiliate.rebateBps,
      };
    });
  }

  /**
   * The affiliate's upline at `at`, as the agency answers `ancestors`: level 2 the affiliate that referred its user
   * (by then), 3 and 4 above; a suspended level is left out (the chain above it still counts). A referral chain
   * here never closes a cycle (refer refuses an already referred user, so the chain is a forest's path).
   */
  private uplineOf(projectId: string, affiliate: FakeAffiliate, at: Date): UplineAffiliate[] {
    const upline: UplineAffiliate[] = [];
    let below = affiliate;
    for (const level of [2, 3, 4] as UplineLevel[]) {
      const referral = this.referrals.get(userKey(projectId, below.ref.user));
      if (!referral || referral.at > at) break;
      below = referral.affiliate;
      if (!below.suspended.at(at)) upline.push({ level, affiliate: below.ref });
    }
    return upline;
  }

  private affiliate(projectId: string, user: User): FakeAffiliate {
    const affiliate = this.affiliates.get(userKey(projectId, user));
    if (!affiliate) throw new Error(`no affiliate ${user.identifier} in the fake agency: createAffiliate first`);
    return affiliate;
  }
}
