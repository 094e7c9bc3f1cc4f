import type { UserIdentifier } from '../../common/identifiers';
import { type Reward, rewardAmount, shareOf } from './reward';
import type { MovementKind } from './vocabulary';

/** An affiliate as the agency service names it: its id there, and the wallet (or other identifier) paid. */
export interface AffiliateRef {
  id: string;
  user: UserIdentifier;
}

/** Who a conversion is attributed to at the moment it happened (agency ResolveAttribution). */
export interface Attribution {
  affiliate: AffiliateRef;
  /** The affiliate's master affiliate and its spread, if it has one. */
  master: { affiliate: AffiliateRef; spreadBps: number } | null;
  /** The affiliate's active tier (an audience id), if it has one. */
  tierId: string | null;
}

/** Payout terms as the arithmetic reads them. */
export interface PayoutTermsView {
  currencyId: string;
  endUser: Reward | null;
  affiliate: Reward | null;
  tiers: ReadonlyArray<{ audienceId: string; affiliate: Reward }>;
}

export interface PlannedMovement {
  kind: MovementKind;
  beneficiary: UserIdentifier;
  amount: bigint;
}

export type PayoutPlan =
  | { status: 'processed'; currencyId: string; movements: PlannedMovement[] }
  | { status: 'no_terms'; currencyId: null; movements: [] };

/**
 * What one conversion pays, under its terms and attribution. Pure arithmetic, every rule here:
 * - no terms: nothing is paid (`no_terms`); the conversion still counts for volume and revenue;
 * - the end user gets `end_user` (unset: nothing);
 * - the affiliate gets the reward of its active tier when the terms name that tier, else `affiliate`;
 * - the affiliate's master gets floor(reward_base * spread_bps / 10,000) on top, as agency_payout;
 * - a bps reward is floor(reward_base * bps / 10,000): every division floors, and what flooring
 *   leaves over stays with the project;
 * - a payout of 0 is no movement (the ledger holds only amounts that are owed).
 */
export function planPayouts(
  conversion: { user: UserIdentifier; rewardBase: bigint },
  attribution: Attribution | null,
  terms: PayoutTermsView | null,
): PayoutPlan {
  if (!terms) return { status: 'no_terms', currencyId: null, movements: [] };
  const movements: PlannedMovement[] = [];
  const pay = (kind: MovementKind, beneficiary: UserIdentifier, amount: bigint) => {
    if (amount > 0n) movements.push({ kind, beneficiary, amount });
  };
  if (terms.endUser) pay('end_user_payout', conversion.user, rewardAmount(terms.endUser, conversion.rewardBase));
  if (attribution) {
    const reward = affiliateReward(terms, attribution.tierId);
    if (reward) pay('affiliate_payout', attribution.affiliate.user, rewardAmount(reward, conversion.rewardBase));
    if (attribution.master) pay('agency_payout', attribution.master.affiliate.user, shareOf(conversion.rewardBase, attribution.master.spreadBps));
  }
  return { status: 'processed', currencyId: terms.currencyId, movements };
}

/** The affiliate's reward: its active tier's when the terms name that tier, else the terms' `affiliate`. */
export function affiliateReward(terms: PayoutTermsView, tierId: string | null): Reward | null {
  const tier = tierId === null ? undefined : terms.tiers.find((candidate) => candidate.audienceId === tierId);
  return tier?.affiliate ?? terms.affiliate;
}
