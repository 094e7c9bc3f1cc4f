import type { UserIdentifier } from '../../rules/identifiers';
import { type Reward, rewardAmount, shareOf } from './reward';
import type { CapKind, MovementKind } from './vocabulary';

/** An affiliate as the agency service names it: its id there, and the wallet (or other identifier) paid. */
export interface AffiliateRef {
  id: string;
  user: UserIdentifier;
}

/** A referral level above the referring affiliate (docs/claims.md#referral-levels): 2 its referrer, 3 and 4 above. */
export type UplineLevel = 2 | 3 | 4;
export const UPLINE_LEVELS: readonly UplineLevel[] = [2, 3, 4];

/** One affiliate of the referring affiliate's upline, at its level. */
export interface UplineAffiliate {
  level: UplineLevel;
  affiliate: AffiliateRef;
}

/** Who a conversion is attributed to at the moment it happened (agency ResolveAttribution). */
export interface Attribution {
  affiliate: AffiliateRef;
  /**
   * The affiliate's upline at that moment, by ascending level (the agency's `ancestors`): suspended levels are
   * left out, so levels may skip; empty when the affiliate was referred by nobody. Frozen with the rest.
   */
  upline: UplineAffiliate[];
  /** The affiliate's master affiliate and its spread, if it has one. */
  master: { affiliate: AffiliateRef; spreadBps: number } | null;
  /** The affiliate's active tier (an audience id), if it has one. */
  tierId: string | null;
  /**
   * The share of the affiliate's reward (basis points, 0..2000) the referral's code gives to the user it
   * referred (docs/claims.md#rebates): the code's rate when the conversion was paid, frozen with the rest.
   */
  rebateBps: number;
}

/**
 * An attribution as the agency answers it for a batch being paid: what is frozen on the conversion
 * (Attribution), and two facts the payment path reads but does not store: when the user was referred
 * (the review rule on seconds from referral to conversion) and whether the affiliate is flagged now
 * (its and its master's payouts then wait for review).
 */
export interface ResolvedAttribution extends Attribution {
  /** When its user was referred by the affiliate (the agency's referred_at); null when the agency did not say. */
  referredAt: Date | null;
  /** Whether the referring affiliate is flagged when the attribution is answered (not at the conversion's moment). */
  affiliateFlagged: boolean;
}

/** The rewards of referral levels 2..4 (unset: that level is not paid). */
export type UplineRewards = Partial<Record<UplineLevel, Reward>>;

/** Payout terms as the arithmetic reads them. */
export interface PayoutTermsView {
  currencyId: string;
  endUser: Reward | null;
  affiliate: Reward | null;
  /** The rewards of the affiliate's upline, levels 2..4, when the affiliate's active tier is not one of `tiers`. */
  upline: UplineRewards;
  tiers: ReadonlyArray<{ audienceId: string; affiliate: Reward; upline: UplineRewards }>;
  /** Only members of this audience earn `endUser` (null: every converting user may). */
  endUserAllowlistAudienceId: string | null;
  /** Only members of this audience earn the affiliate's reward, and their masters the spread (null: every affiliate may). */
  affiliateAllowlistAudienceId: string | null;
}

/** One side of a conversion checked against its terms' allowlist: the audience, and whether the side was a member. */
export interface SideEligibility {
  allowlistAudienceId: string;
  eligible: boolean;
}

/**
 * What the allowlists decided, frozen on the conversion: per side, null when the terms named no
 * allowlist for it (or, for the affiliate, when nobody referred the user). The master's spread
 * follows the affiliate's side.
 */
export interface Eligibility {
  endUser: SideEligibility | null;
  affiliate: SideEligibility | null;
}

/** Whether the user is a member of the audience when the conversion is processed (the audience service's answer for the batch). */
export type IsMember = (audienceId: string, user: UserIdentifier) => boolean;

export interface PlannedMovement {
  kind: MovementKind;
  beneficiary: UserIdentifier;
  amount: bigint;
  /**
   * Set by the payment path (never by planPayouts) on the affiliate's and its master's movements when the
   * affiliate is flagged: this movement waits for `review` whatever its conversion's terms say.
   */
  waitsForFlag?: true;
  /**
   * Set by the payment path (never by planPayouts) when the terms' caps cut this movement: what was cut
   * (never paid) and by which cap first; `amount` is then what is left, possibly 0.
   */
  capped?: { amount: bigint; by: CapKind };
  /**
   * On an `end_user_payout` to the converting user that is its referrer's rebate: taken from the
   * `affiliate_payout` of the same conversion (splitRebate), never added to it.
   */
  rebate?: true;
  /**
   * On an `affiliate_payout` to the referring affiliate's upline: the referral level it pays (2..4,
   * docs/claims.md#referral-levels). Absent on the referring affiliate's own (level 1) and on other kinds.
   */
  level?: UplineLevel;
}

export type PayoutPlan =
  | { status: 'processed'; currencyId: string; movements: PlannedMovement[]; eligibility: Eligibility }
  | { status: 'no_terms'; currencyId: null; movements: []; eligibility: null };

/** Nobody is asked about: terms without allowlists never consult it. */
const NO_ALLOWLISTS: IsMember = () => {
  throw new Error('an allowlist was consulted, but the terms name none');
};

/**
 * What one conversion pays, under its terms and attribution. Pure arithmetic, every rule here:
 * - no terms: nothing is paid (`no_terms`); the conversion still counts for volume and revenue;
 * - the end user gets `end_user` (unset: nothing), when it is a member of the terms' end-user
 *   allowlist (if they name one);
 * - the affiliate gets the reward of its active tier when the terms name that tier, else `affiliate`,
 *   when it is a member of the terms' affiliate allowlist (if they name one);
 * - the affiliate's master gets floor(reward_base * spread_bps / 10,000) on top, as agency_payout,
 *   when its affiliate is eligible (the spread follows its sub-affiliate's eligibility);
 * - a bps reward is floor(reward_base * bps / 10,000): every division floors, and what flooring
 *   leaves over stays with the project;
 * - the affiliate's reward is split with the user when its code has a rebate rate (splitRebate): the
 *   user's part is an `end_user_payout` marked `rebate` (whatever the end-user allowlist says: it is the
 *   affiliate's money), the affiliate keeps the rest;
 * - each affiliate of the upline (levels 2..4, docs/claims.md#referral-levels) gets its level's reward, from the
 *   same rewards as level 1 (the level-1 affiliate's active tier's when the terms name it, else the terms'),
 *   as an `affiliate_payout` with its `level`, when it is a member of the affiliate allowlist (if named);
 *   no spread and no rebate come from a level above 1;
 * - a payout of 0 is no movement (the ledger holds only amounts that are owed).
 * The plan says what each allowlist decided (`eligibility`), to be frozen on the conversion.
 */
export function planPayouts(
  conversion: { user: UserIdentifier; rewardBase: bigint },
  attribution: Attribution | null,
  terms: PayoutTermsView | null,
  isMember: IsMember = NO_ALLOWLISTS,
): PayoutPlan {
  if (!terms) return { status: 'no_terms', currencyId: null, movements: [], eligibility: null };
  const movements: PlannedMovement[] = [];
  const pay = (kind: MovementKind, beneficiary: UserIdentifier, amount: bigint) => {
    if (amount > 0n) movements.push({ kind, beneficiary, amount });
  };
  const check = (audienceId: string | null, user: UserIdentifier): SideEligibility | null =>
    audienceId === null ? null : { allowlistAudienceId: audienceId, eligible: isMember(audienceId, user) };
  const endUser = check(terms.endUserAllowlistAudienceId, conversion.user);
  if (terms.endUser && (endUser?.eligible ?? true)) pay('end_user_payout', conversion.user, rewardAmount(terms.endUser, conversion.rewardBase));
  let affiliate: SideEligibility | null = null;
  if (attribution) {
    affiliate = check(terms.affiliateAllowlistAudienceId, attribution.affiliate.user);
    if (affiliate?.eligible ?? true) {
      const reward = affiliateReward(terms, attribution.tierId);
      if (reward) {
        const split = splitRebate(rewardAmount(reward, conversion.rewardBase), attribution.rebateBps);
        pay('affiliate_payout', attribution.affiliate.user, split.affiliate);
        if (split.rebate > 0n) movements.push({ kind: 'end_user_payout', beneficiary: conversion.user, amount: split.rebate, rebate: true });
      }
      if (attribution.master) pay('agency_payout', attribution.master.affiliate.user, shareOf(conversion.rewardBase, attribution.master.spreadBps));
    }
    const rewards = uplineRewards(terms, attribution.tierId);
    for (const { level, affiliate: ancestor } of attribution.upline) {
      const reward = rewards[level];
      if (!reward || !(check(terms.affiliateAllowlistAudienceId, ancestor.user)?.eligible ?? true)) continue;
      const amount = rewardAmount(reward, conversion.rewardBase);
      if (amount > 0n) movements.push({ kind: 'affiliate_payout', beneficiary: ancestor.user, amount, level });
    }
  }
  return { status: 'processed', currencyId: terms.currencyId, movements, eligibility: { endUser, affiliate } };
}

/** The most a code's rebate rate may be: 20% of the affiliate's reward (the SDK's `user_rebate_rate` 0.2). */
export const MAX_REBATE_BPS = 2_000;

/**
 * An affiliate's reward split with the user it referred: the rebate is floor(reward × bps / 10,000), the
 * affiliate keeps the rest, and the two add up to the reward exactly (what flooring leaves stays with
 * the affiliate). Applied to the reward as the terms' caps left it (applyCaps splits again after capping).
 */
export function splitRebate(reward: bigint, rebateBps: number): { affiliate: bigint; rebate: bigint } {
  const rebate = shareOf(reward, rebateBps);
  return { affiliate: reward - rebate, rebate };
}

/**
 * The membership questions one conversion's plan will ask (planPayouts' `isMember`): its user under
 * the end-user allowlist, its affiliate under the affiliate allowlist. None when the terms name no
 * allowlist: such a batch never asks the audience service.
 */
export function allowlistQuestions(
  conversion: { user: UserIdentifier },
  attribution: Attribution | null,
  terms: PayoutTermsView | null,
): Array<{ audienceId: string; user: UserIdentifier }> {
  if (!terms) return [];
  const questions: Array<{ audienceId: string; user: UserIdentifier }> = [];
  if (terms.endUserAllowlistAudienceId !== null) questions.push({ audienceId: terms.endUserAllowlistAudienceId, user: conversion.user });
  if (attribution && terms.affiliateAllowlistAudienceId !== null) {
    questions.push({ audienceId: terms.affiliateAllowlistAudienceId, user: attribution.affiliate.user });
    const rewards = uplineRewards(terms, attribution.tierId);
    for (const { level, affiliate } of attribution.upline) {
      if (rewards[level]) questions.push({ audienceId: terms.affiliateAllowlistAudienceId, user: affiliate.user });
    }
  }
  return questions;
}

function tierOf(terms: PayoutTermsView, tierId: string | null) {
  return tierId === null ? undefined : terms.tiers.find((candidate) => candidate.audienceId === tierId);
}

/** The affiliate's reward: its active tier's when the terms name that tier, else the terms' `affiliate`. */
export function affiliateReward(terms: PayoutTermsView, tierId: string | null): Reward | null {
  return tierOf(terms, tierId)?.affiliate ?? terms.affiliate;
}

/**
 * The upline's rewards: the level-1 affiliate's active tier's when the terms name that tier (a tier replaces the
 * terms' rewards whole: a level it leaves unset pays nothing), else the terms' own.
 */
export function uplineRewards(terms: PayoutTermsView, tierId: string | null): UplineRewards {
  return tierOf(terms, tierId)?.upline ?? terms.upline;
}
