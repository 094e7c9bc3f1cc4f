import type {
  AffiliateFigures,
  AffiliateStats,
  AffiliateTotals,
  EarnedInCurrency,
  LevelFigures,
  ReferralTree,
  ReferralTreeNode,
  ReferredUser,
} from '../../../gen/referral/agency/v1/activity';
import type { Affiliate, Tier } from '../../../gen/referral/agency/v1/agency';
import { AffiliateStatus } from '../../../gen/referral/agency/v1/enums';
import { tierSlug } from '../../../services/rules/tier-slug';
import { count, required } from '../../http/present';
import { presentUser } from './agency.presenters';
import { unitsAsNumber } from '../../../services/rules/money';

/**
 * The @fuul/sdk's affiliate stats API in its own shapes (dist/affiliate-portal/types): USD figures and
 * token amounts as the numbers its types declare, for display; levels 2 to 4 as the agency answers them
 * (docs/claims.md#referral-levels).
 */

/** A currency as the SDK names it: its name, or its id while the agency does not know its details yet. */
const currencyName = (earning: EarnedInCurrency) => earning.currencyName ?? earning.currencyId;

/** Per currency, in whole units (base units while the currency's decimals are not known yet). */
function presentEarnings(earnings: EarnedInCurrency[]) {
  return earnings.map((earning) => ({ amount: unitsAsNumber(earning.amount, earning.currencyDecimals ?? 0), currency: currencyName(earning) }));
}

/** The SDK's statuses (a suspended affiliate is Paused; none is Terminated here). */
const STATUSES: Partial<Record<AffiliateStatus, 'Active' | 'Paused' | 'Flagged'>> = {
  [AffiliateStatus.ACTIVE]: 'Active',
  [AffiliateStatus.SUSPENDED]: 'Paused',
  [AffiliateStatus.FLAGGED]: 'Flagged',
};

const presentStatus = (status: AffiliateStatus) => required(STATUSES[status], 'status');

function presentTier(tier: Tier | undefined) {
  return tier ? { id: tier.id, name: tier.name, rank: tier.rank, slug: tierSlug(tier.name) } : null;
}

const levelOf = (figures: AffiliateFigures, level: number): LevelFigures => required(figures.levels[level - 1], `levels[${level - 1}]`);

/** The affiliate's identifier as the SDK echoes it. */
function identified(affiliate: Affiliate) {
  const user = presentUser(affiliate.user);
  return { user_identifier: user.identifier, user_identifier_type: user.identifier_type };
}

export function presentSdkAffiliateStats(affiliate: Affiliate, figures: AffiliateFigures) {
  const [r1, r2, r3, r4] = [1, 2, 3, 4].map((level) => levelOf(figures, level)) as [LevelFigures, LevelFigures, LevelFigures, LevelFigures];
  const volume = (level: LevelFigures) => Number(level.volumeUsd);
  const revenue = (level: LevelFigures) => Number(level.revenueUsd);
  const users = (level: LevelFigures) => count(level.convertingUsers, 'converting_users');
  const multilevel = volume(r2) + volume(r3) + volume(r4);
  const endUsers = count(figures.endUsers, 'end_users');
  return {
    ...identified(affiliate),
    total_earnings: presentEarnings(sumEarnings([r1, r2, r3, r4])),
    referred_volume: volume(r1),
    r2_volume: volume(r2),
    r3_volume: volume(r3),
    r4_volume: volume(r4),
    multilevel_volume: multilevel,
    total_volume: volume(r1) + multilevel,
    end_user_volume: volume(r1),
    referred_revenue: revenue(r1),
    r2_revenue: revenue(r2),
    r3_revenue: revenue(r3),
    r4_revenue: revenue(r4),
    referred_attributions: count(r1.conversions, 'conversions'),
    r1_earnings: presentEarnings(r1.earnings),
    r2_earnings: presentEarnings(r2.earnings),
    r3_earnings: presentEarnings(r3.earnings),
    r4_earnings: presentEarnings(r4.earnings),
    referred_users: users(r1),
    active_referrers: users(r1),
    active_referred_users_r2: users(r2),
    active_referred_users_r3: users(r3),
    active_referred_users_r4: users(r4),
    total_referrers: endUsers,
    assigned_referrers: endUsers,
    status: presentStatus(affiliate.status),
    region: null,
    referral_codes: affiliate.codes.map((code) => code.code),
    effective_tier: presentTier(affiliate.currentTier),
    current_tier: presentTier(affiliate.activeTier),
  };
}

/** Every level's earnings summed per currency (in the order first met: level 1's, by name). */
function sumEarnings(levels: LevelFigures[]): EarnedInCurrency[] {
  const sums = new Map<string, EarnedInCurrency>();
  for (const earning of levels.flatMap((level) => level.earnings)) {
    const sum = sums.get(earning.currencyId);
    sums.set(earning.currencyId, sum ? { ...sum, amount: String(BigInt(sum.amount) + BigInt(earning.amount)) } : earning);
  }
  return [...sums.values()];
}

export function presentPaidVolumes(affiliate: Affiliate, figures: AffiliateFigures) {
  const levels = [1, 2, 3, 4].map((level) => levelOf(figures, level));
  const volumes = levels.map((level) => Number(level.paidVolumeUsd));
  const revenues = levels.map((level) => Number(level.paidRevenueUsd));
  const attributions = levels.map((level) => count(level.paidConversions, 'paid_conversions'));
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  return {
    ...identified(affiliate),
    payout_eligible_l1_volume: volumes[0]!,
    payout_eligible_l2_volume: volumes[1]!,
    payout_eligible_l3_volume: volumes[2]!,
    payout_eligible_l4_volume: volumes[3]!,
    payout_eligible_l1_revenue: revenues[0]!,
    payout_eligible_l2_revenue: revenues[1]!,
    payout_eligible_l3_revenue: revenues[2]!,
    payout_eligible_l4_revenue: revenues[3]!,
    payout_eligible_l1_attributions: attributions[0]!,
    payout_eligible_l2_attributions: attributions[1]!,
    payout_eligible_l3_attributions: attributions[2]!,
    payout_eligible_l4_attributions: attributions[3]!,
    payout_eligible_total_volume: sum(volumes),
    payout_eligible_total_revenue: sum(revenues),
    payout_eligible_total_attributions: sum(attributions),
  };
}

export function presentNewTraders(affiliate: Affiliate, figures: AffiliateFigures) {
  return [{ referrer_identifier: identified(affiliate).user_identifier, total_new_traders: figures.newUsers }];
}

/** The SDK's node of a referral tree. */
interface TreeNode {
  user_identifier: string;
  project_affiliate_id: string | null;
  traders: number;
  total_volume: number;
  total_revenue: number;
  children: TreeNode[];
}

/** An affiliate of the downline as a node: its own all-time figures, and the affiliates of its downline below it. */
function downlineNode(node: ReferralTreeNode, below: Map<string, ReferralTreeNode[]>): TreeNode {
  return {
    user_identifier: node.identifier,
    project_affiliate_id: node.affiliateId,
    traders: count(node.convertingUsers, 'converting_users'),
    total_volume: Number(node.volumeUsd),
    total_revenue: Number(node.revenueUsd),
    children: (below.get(node.affiliateId) ?? []).map((child) => downlineNode(child, below)),
  };
}

/**
 * The affiliate (its all-time level-1 figures) and its tree to four levels: its children are the users it
 * referred (highest volume first, each with its volume and revenue attributed to it), a user that is itself an
 * affiliate shown as one (its own figures and its downline below it), then the affiliates it referred beyond
 * that page; below level 1 the nodes are the downline's affiliates (their plain users counted in `traders`).
 */
export function presentReferralTree(affiliate: Affiliate, figures: AffiliateFigures, referred: ReferredUser[], tree: ReferralTree): TreeNode {
  const r1 = levelOf(figures, 1);
  const below = new Map<string, ReferralTreeNode[]>();
  for (const node of tree.nodes) below.set(node.parentAffiliateId, [...(below.get(node.parentAffiliateId) ?? []), node]);
  const key = (identifier: string, type: string) => `${type}:${identifier}`;
  const direct = new Map((below.get(affiliate.id) ?? []).map((node) => [key(node.identifier, node.identifierType), node]));
  const children = referred.map((referredUser): TreeNode => {
    const user = required(referredUser.user, 'user');
    const asAffiliate = direct.get(key(user.identifier, user.identifierType));
    if (asAffiliate) {
      direct.delete(key(user.identifier, user.identifierType));
      return downlineNode(asAffiliate, below);
    }
    return {
      user_identifier: user.identifier,
      project_affiliate_id: null,
      traders: 0,
      total_volume: Number(referredUser.volumeUsd),
      total_revenue: Number(referredUser.revenueUsd),
      children: [],
    };
  });
  return {
    user_identifier: identified(affiliate).user_identifier,
    project_affiliate_id: affiliate.id,
    traders: count(r1.convertingUsers, 'converting_users'),
    total_volume: Number(r1.volumeUsd),
    total_revenue: Number(r1.revenueUsd),
    children: [...children, ...[...direct.values()].map((node) => downlineNode(node, below))],
  };
}

/**
 * The buckets of GetAffiliateStats' series as the SDK's breakdown: level 1 in r1_volume, levels 2 and 3 in
 * r2_volume and r3_volume (the SDK's breakdown has no r4), earnings (level 1's) summed in one currency:
 * `currencyId`'s, else the first of the affiliate's all-time earnings (by name); none, earnings 0 and
 * earnings_currency null.
 */
export function presentBreakdown(stats: AffiliateStats, currencyId: string | undefined) {
  const inCurrency = (earnings: EarnedInCurrency[], id: string) => earnings.find((earning) => earning.currencyId === id);
  const chosen = currencyId ?? stats.earnings[0]?.currencyId;
  const known =
    chosen === undefined
      ? undefined
      : (inCurrency(stats.earnings, chosen) ?? stats.series.flatMap((day) => day.earnings).find((e) => e.currencyId === chosen));
  return {
    results: stats.series.map((bucket) => {
      const earned = chosen === undefined ? undefined : inCurrency(bucket.earnings, chosen);
      return {
        date: bucket.date,
        r1_volume: Number(bucket.volumeUsd),
        r2_volume: Number(bucket.r2VolumeUsd || 0),
        r3_volume: Number(bucket.r3VolumeUsd || 0),
        revenue: Number(bucket.revenueUsd),
        attributions: count(bucket.conversions, 'conversions'),
        referred_users: count(bucket.referredUsers, 'referred_users'),
        earnings: earned ? unitsAsNumber(earned.amount, earned.currencyDecimals ?? 0) : 0,
        earnings_currency: known ? currencyName(known) : (chosen ?? null),
      };
    }),
  };
}

export function presentTotalStats(totals: AffiliateTotals) {
  return {
    total_affiliates: count(totals.affiliates, 'affiliates'),
    active_affiliates: count(totals.active, 'active'),
    suspended_affiliates: count(totals.suspended, 'suspended'),
    total_regions: count(totals.regions, 'regions'),
    total_volume: Number(totals.volumeUsd),
    total_revenue: Number(totals.revenueUsd),
    total_attributions: count(totals.conversions, 'conversions'),
    total_referred_users: count(totals.endUsers, 'end_users'),
    total_earnings: presentEarnings(totals.earnings),
  };
}
