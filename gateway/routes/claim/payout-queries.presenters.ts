import type { Segment } from '../../../gen/referral/audience/v1/audience';
import type { ReferredUser } from '../../../gen/referral/agency/v1/activity';
import type { CurrencyRef, PayoutTerms, ReferredUserPayouts, Reward, UserPayoutSum } from '../../../gen/referral/claim/v1/claim';
import { wholeUnits } from '../../../services/rules/money';
import { tierSlug } from '../../../services/rules/tier-slug';
import { required } from '../../http/present';
import { presentCurrencyRef } from './claim.presenters';

/** The Fuul SDK's payouts queries and incentives, from the claim service's answers (shapes: payout-queries.schemas.ts). */

export function presentPayoutSum(sum: UserPayoutSum) {
  const currency = presentCurrencyRef(sum.currency);
  return {
    is_referrer: sum.isReferrer,
    total_amount: sum.totalAmount,
    conversion_id: sum.conversionName,
    conversion_name: sum.conversionName,
    currency_address: currency.address,
    chain_id: currency.chain_id === null ? null : String(currency.chain_id),
    currency,
  };
}

function presentEarning(currency: CurrencyRef | undefined, amount: string) {
  const { address, chainId, decimals } = required(currency, 'currency');
  return { currency: { address, chainId }, amount: Number(wholeUnits(BigInt(amount), decimals)), amount_base_units: amount };
}

/** One referred user's figures, keyed by its identifier (the Fuul SDK's PayoutsByReferrerResponse entry). */
export function presentReferredUserPayouts(affiliate: string, record: ReferredUserPayouts, referredWith: string | undefined) {
  const user = required(record.user, 'user');
  const earnings = record.earnings.map((earning) => presentEarning(earning.currency, earning.amount));
  const volume = Number(record.volumeUsd);
  return {
    [user.identifier]: {
      volume,
      direct_eligible_volume: volume,
      indirect_eligible_volume: 0,
      earnings,
      total_commission_earned: earnings,
      date_joined: required(record.firstConversionAt, 'first_conversion_at').toISOString(),
      event_referrer_identifier: affiliate,
      user_rebate_rate: record.userRebateRateBps / 10_000,
      referral_code: referredWith ?? record.referralCode ?? null,
      user_identifier_type: user.identifierType,
    },
  };
}

/** A user the affiliate referred whose conversions were never attributed to it (referrer_scope=all). */
export function presentReferredWithoutPayouts(affiliate: string, referred: ReferredUser) {
  const user = required(referred.user, 'user');
  return {
    [user.identifier]: {
      volume: 0,
      direct_eligible_volume: 0,
      indirect_eligible_volume: 0,
      earnings: [],
      total_commission_earned: [],
      date_joined: null,
      event_referrer_identifier: affiliate,
      user_rebate_rate: null,
      referral_code: referred.code,
      user_identifier_type: user.identifierType,
    },
  };
}

/** What the incentives read beside the terms: the project's currencies and audiences (tiers among them), by id. */
export interface IncentiveContext {
  currencies: Map<string, CurrencyRef>;
  segments: Map<string, Segment>;
}

/** The rewards of referral levels 2..4 of the terms or one of their tiers (docs/claims.md#referral-levels). */
type UplineOf = Pick<PayoutTerms, 'affiliate2' | 'affiliate3' | 'affiliate4'>;

/** Levels 2..4 as a payout group's affiliateN_amount (fixed base units) or affiliateN_amount_percentage (bps ÷ 100); null where not. */
function levelRewards(upline: UplineOf) {
  const fixed = (reward: Reward | undefined) => reward?.fixed ?? null;
  const percent = (reward: Reward | undefined) => (reward?.bps === undefined ? null : reward.bps / 100);
  return {
    affiliate2_amount: fixed(upline.affiliate2),
    affiliate3_amount: fixed(upline.affiliate3),
    affiliate4_amount: fixed(upline.affiliate4),
    affiliate2_amount_percentage: percent(upline.affiliate2),
    affiliate3_amount_percentage: percent(upline.affiliate3),
    affiliate4_amount_percentage: percent(upline.affiliate4),
  };
}

/** A reward as a payout group's `affiliate_amount` (fixed base units) or `affiliate_amount_percentage` (bps ÷ 100). */
function affiliateReward(reward: Reward | undefined): { affiliate_amount?: string; affiliate_amount_percentage?: number } {
  if (reward === undefined) return {};
  if (reward.fixed !== undefined) return { affiliate_amount: reward.fixed };
  return { affiliate_amount_percentage: required(reward.bps, 'bps') / 100 };
}

/** The end user's reward, as affiliateReward's. */
function endUserReward(reward: Reward | undefined): { end_user_amount?: string; end_user_amount_percentage?: number } {
  if (reward === undefined) return {};
  if (reward.fixed !== undefined) return { end_user_amount: reward.fixed };
  return { end_user_amount_percentage: required(reward.bps, 'bps') / 100 };
}

function presentTier(segment: Segment) {
  return {
    id: segment.id,
    name: segment.name,
    slug: tierSlug(segment.name),
    rank: required(segment.tierRank, 'tier_rank'),
    description: segment.description ?? null,
  };
}

function payeeType(terms: PayoutTerms): 'affiliate' | 'end-user' | 'both' {
  const affiliate = terms.affiliate !== undefined || terms.tiers.length > 0;
  if (affiliate && terms.endUser !== undefined) return 'both';
  return affiliate ? 'affiliate' : 'end-user';
}

/** fixed or variable, as the affiliate's default reward pays (else the first tier's, else the end user's). */
function strategy(terms: PayoutTerms): 'fixed' | 'variable' | null {
  const reward = terms.affiliate ?? terms.tiers[0]?.affiliate ?? terms.endUser;
  if (reward === undefined) return null;
  return reward.fixed !== undefined ? 'fixed' : 'variable';
}

function presentTerm(terms: PayoutTerms, context: IncentiveContext) {
  const currency = required(context.currencies.get(terms.currencyId), `currency ${terms.currencyId}`);
  const allowlist = terms.affiliateAllowlistAudienceId === undefined ? undefined : context.segments.get(terms.affiliateAllowlistAudienceId);
  const caps = {
    payout_cap_enabled: terms.caps?.perConversion !== undefined,
    enduser_cap_enabled: terms.caps?.perEndUser !== undefined,
    wallet_cap_enabled: terms.caps?.perAffiliateWindow !== undefined,
    dynamic_referral_cap_enabled: false,
  };
  const group = (id: string, name: string, affiliate: Reward | undefined, upline: UplineOf, tier: Segment | undefined) => ({
    id,
    name,
    ...affiliateReward(affiliate),
    ...endUserReward(terms.endUser),
    ...levelRewards(upline),
    audience: allowlist ? { id: allowlist.id, name: allowlist.name } : null,
    project_tier: tier ? presentTier(tier) : null,
    ...caps,
  });
  const tierGroups = terms.tiers.flatMap((tier) => {
    const segment = context.segments.get(tier.audienceId);
    return segment?.tierRank === undefined ? [] : [group(segment.id, segment.name, tier.affiliate, tier, segment)];
  });
  return {
    id: terms.conversionName,
    scheme: 'pay-per-attribution' as const,
    tier_type: 'audience' as const,
    conversion_id: terms.conversionName,
    type: 'onchain-currency' as const,
    calculation_strategy: strategy(terms),
    trigger_amount_source: null,
    base_currency: null,
    payout_currency_address: currency.address,
    payout_currency_chain_id: Number(currency.chainId),
    require_affiliate: false,
    require_approval: terms.requireApproval,
    ...(terms.endUser?.fixed === undefined ? {} : { referral_amount: terms.endUser.fixed }),
    ...(terms.affiliate?.fixed === undefined ? {} : { referrer_amount: terms.affiliate.fixed }),
    ...(terms.affiliate2?.fixed === undefined ? {} : { referrer2_amount: terms.affiliate2.fixed }),
    ...(terms.affiliate3?.fixed === undefined ? {} : { referrer3_amount: terms.affiliate3.fixed }),
    ...(terms.affiliate4?.fixed === undefined ? {} : { referrer4_amount: terms.affiliate4.fixed }),
    max_payout_amount: terms.caps?.perConversion ?? null,
    end_user_cap_amount: terms.caps?.perEndUser ?? null,
    end_user_cap_window_days: null,
    wallet_cap_amount: terms.caps?.perAffiliateWindow?.amount ?? null,
    wallet_cap_window_days: terms.caps?.perAffiliateWindow?.days ?? null,
    dynamic_referral_cap_multiplier: null,
    payout_groups: [group('default', 'default', terms.affiliate, terms, undefined), ...tierGroups],
    payee_type: payeeType(terms),
  };
}

/** The project's payout terms as the Fuul SDK's Conversion list (getConversions / getIncentives), oldest terms first. */
export function presentIncentives(terms: PayoutTerms[], context: IncentiveContext) {
  const oldestFirst = [...terms].sort(
    (a, b) =>
      required(a.createdAt, 'created_at').getTime() - required(b.createdAt, 'created_at').getTime() ||
      (a.conversionName < b.conversionName ? -1 : a.conversionName > b.conversionName ? 1 : 0),
  );
  return oldestFirst.map((item, index) => ({
    id: item.conversionName,
    external_id: index + 1,
    name: item.conversionName,
    slug: tierSlug(item.conversionName),
    enabled: true,
    triggers: [],
    payout_terms: [presentTerm(item, context)],
    created_at: required(item.createdAt, 'created_at').toISOString(),
    updated_at: required(item.updatedAt, 'updated_at').toISOString(),
  }));
}

const notPaid = { amount: null, currency: null, unit: 'none' as const };

function rate(reward: Reward | undefined, currency: CurrencyRef) {
  if (reward === undefined) return notPaid;
  if (reward.fixed !== undefined) return { amount: reward.fixed, currency: currency.address, unit: 'base_units' as const };
  return { amount: String(required(reward.bps, 'bps')), currency: null, unit: 'bps' as const };
}

/**
 * The terms as an affiliate of one tier earns them (null: in no tier the terms name): the tier's
 * rewards where the terms name the tier (its own and its upline's, levels 2..4), else the default ones.
 */
function termsForTier(terms: PayoutTerms, tierId: string | null, context: IncentiveContext) {
  const currency = required(context.currencies.get(terms.currencyId), `currency ${terms.currencyId}`);
  const tier = tierId === null ? undefined : terms.tiers.find((candidate) => candidate.audienceId === tierId);
  const affiliate = tier?.affiliate ?? terms.affiliate;
  // A tier the terms name replaces the rewards of every level (docs/claims.md#referral-levels).
  const upline: UplineOf = tier ?? terms;
  return {
    conversion_name: terms.conversionName,
    payout_type: (affiliate ?? terms.endUser)?.fixed !== undefined ? ('fixed' as const) : ('variable' as const),
    payee_type: payeeType(terms),
    is_multi_level: upline.affiliate2 !== undefined || upline.affiliate3 !== undefined || upline.affiliate4 !== undefined,
    affiliate_rate: rate(affiliate, currency),
    affiliate2_rate: rate(upline.affiliate2, currency),
    affiliate3_rate: rate(upline.affiliate3, currency),
    affiliate4_rate: rate(upline.affiliate4, currency),
    end_user_rate: rate(terms.endUser, currency),
  };
}

/**
 * Per tier of the project (its audiences with a rank, highest rank first) and the default bucket (last),
 * what each conversion name pays there; `wanted` narrows them (ids, `null` for the default).
 */
export function presentTermsByTier(terms: PayoutTerms[], context: IncentiveContext, wanted: Set<string> | undefined) {
  const byName = [...terms].sort((a, b) => (a.conversionName < b.conversionName ? -1 : a.conversionName > b.conversionName ? 1 : 0));
  const tiers = [...context.segments.values()]
    .filter((segment) => segment.tierRank !== undefined)
    .sort((a, b) => required(b.tierRank, 'tier_rank') - required(a.tierRank, 'tier_rank'));
  const buckets = [
    ...tiers.map((segment) => ({
      tier_id: segment.id,
      tier_name: segment.name,
      tier_description: segment.description ?? null,
      tier_slug: tierSlug(segment.name),
      tier_rank: required(segment.tierRank, 'tier_rank'),
    })),
    { tier_id: null, tier_name: null, tier_description: null, tier_slug: null, tier_rank: null },
  ];
  return {
    tiers: buckets
      .filter((bucket) => wanted === undefined || wanted.has(bucket.tier_id ?? 'null'))
      .map((bucket) => ({ ...bucket, payout_terms: byName.map((item) => termsForTier(item, bucket.tier_id, context)) })),
  };
}
