import type { EarnedInCurrency } from '../../../gen/referral/agency/v1/activity';
import type { Affiliate, AffiliateRef, Earning, GetReferrerResponse, Referral, Tier } from '../../../gen/referral/agency/v1/agency';
import { AffiliateStatus } from '../../../gen/referral/agency/v1/enums';
import { EffectiveTaxStatus } from '../../../gen/referral/tax/v1/enums';
import type { UserRef } from '../../../gen/referral/common/v1/common';
import { count, nameOf, required } from '../../http/present';
import { earningChainId } from '../../../services/rules/payout-vocabulary';
import { bpsToRebateRate } from '../../../services/rules/rebate-rate';
import { tierSlug } from '../../../services/rules/tier-slug';

/** gRPC messages -> the JSON the API documents (agency.schemas.ts). */
function presentRef(ref: AffiliateRef | undefined) {
  return ref ? { id: ref.id, identifier: ref.identifier, identifier_type: ref.identifierType } : null;
}

function presentTier(tier: Tier | undefined) {
  return tier ? { id: tier.id, name: tier.name, rank: tier.rank } : null;
}

/** A user as the agency's JSON names it: identifier and identifier_type. */
export function presentUser(user: UserRef | undefined) {
  const { identifier, identifierType } = required(user, 'user');
  return { identifier, identifier_type: identifierType };
}

export function presentCodes(affiliate: Affiliate) {
  return affiliate.codes.map((code) => ({
    code: code.code,
    uses: count(code.uses, 'codes.uses'),
    created_at: required(code.createdAt, 'codes.created_at').toISOString(),
    rebate_rate: bpsToRebateRate(code.userRebateRateBps ?? null),
    clicks: code.stats ? count(code.stats.clicks, 'codes.stats.clicks') : null,
  }));
}

/** The codes as the @fuul/sdk's AffiliateCodeWithStats (from GetAffiliate, which counts each code's figures). */
function presentSdkCodes(affiliate: Affiliate) {
  return affiliate.codes.map((code) => {
    const stats = required(code.stats, 'codes.stats');
    const uses = count(code.uses, 'codes.uses');
    return {
      code: code.code,
      created_at: required(code.createdAt, 'codes.created_at').toISOString(),
      uses,
      clicks: count(stats.clicks, 'codes.stats.clicks'),
      total_users: uses,
      // The SDK's type is a number: a display figure, not an amount to pay.
      total_earnings: Number(stats.earnings),
      rebate_rate: bpsToRebateRate(code.userRebateRateBps ?? null),
    };
  });
}

/**
 * The affiliate as its own wallet sees it (the portal): its status says it is flagged, but the admin's
 * reason stays internal (it may name the suspected abuse).
 */
export function presentOwnAffiliate(affiliate: Affiliate) {
  return { ...presentAffiliate(affiliate), flag_reason: null };
}

export function presentAffiliate(affiliate: Affiliate) {
  // The user's fields written out, not spread (a spread after another property takes V8's slow path):
  // every item of every affiliate list page comes through here.
  const { identifier, identifierType } = required(affiliate.user, 'user');
  return {
    id: affiliate.id,
    identifier,
    identifier_type: identifierType,
    name: affiliate.name,
    region: affiliate.region ?? null,
    status: nameOf(AffiliateStatus, affiliate.status, 'status'),
    suspended_at: affiliate.suspendedAt?.toISOString() ?? null,
    suspension_reason: affiliate.suspensionReason ?? null,
    flagged_at: affiliate.flaggedAt?.toISOString() ?? null,
    flag_reason: affiliate.flagReason ?? null,
    codes: presentCodes(affiliate),
    master: presentRef(affiliate.master),
    is_master: affiliate.isMaster,
    current_tier: presentTier(affiliate.currentTier),
    active_tier: presentTier(affiliate.activeTier),
    tier_protection: affiliate.tierProtection
      ? {
          tier_id: affiliate.tierProtection.tierId,
          expires_at: required(affiliate.tierProtection.expiresAt, 'tier_protection.expires_at').toISOString(),
          days_remaining: affiliate.tierProtection.daysRemaining,
        }
      : null,
    joined_at: required(affiliate.joinedAt, 'joined_at').toISOString(),
    updated_at: required(affiliate.updatedAt, 'updated_at').toISOString(),
  };
}

export function presentReferral(referral: Referral) {
  const user = presentUser(referral.user);
  const affiliate = required(referral.affiliate, 'affiliate');
  return {
    user_identifier: user.identifier,
    user_identifier_type: user.identifier_type,
    affiliate: { id: affiliate.id, identifier: affiliate.identifier },
    code: referral.code,
    referred_at: required(referral.referredAt, 'referred_at').toISOString(),
  };
}

/** The @fuul/sdk's shapes: `user_identifier` where our own API says `identifier`. */
export function presentSdkCreatedAffiliate(affiliate: Affiliate, code: string) {
  const user = presentUser(affiliate.user);
  return {
    id: affiliate.id,
    name: affiliate.name,
    code: affiliate.codes.find((held) => held.code.toLowerCase() === code.toLowerCase())?.code ?? code,
    user_identifier: user.identifier,
    user_identifier_type: user.identifier_type,
    region: affiliate.region ?? null,
    updated_at: required(affiliate.updatedAt, 'updated_at').toISOString(),
  };
}

export function presentSdkAffiliate(affiliate: Affiliate) {
  const user = presentUser(affiliate.user);
  return {
    id: affiliate.id,
    name: affiliate.name,
    user_identifier: user.identifier,
    user_identifier_type: user.identifier_type,
    region: affiliate.region ?? null,
    codes: presentSdkCodes(affiliate),
    current_tier: affiliate.currentTier ? { ...presentTier(affiliate.currentTier)!, slug: tierSlug(affiliate.currentTier.name) } : null,
    updated_at: required(affiliate.updatedAt, 'updated_at').toISOString(),
  };
}

export function presentReferrer(userIdentifier: string, referrer: GetReferrerResponse) {
  const referral = referrer.referral;
  return {
    user_identifier: userIdentifier,
    referrer_identifier: referral ? required(referral.affiliate, 'affiliate').identifier : null,
    referrer_name: referrer.referrerName ?? null,
    referrer_code: referrer.referrerCodes[0] ?? null,
    referrer_codes: referrer.referrerCodes,
    referred_at: referral ? required(referral.referredAt, 'referred_at').toISOString() : null,
    referrer_user_rebate_rate: bpsToRebateRate(referrer.referrerUserRebateRateBps ?? null),
  };
}

/** The list's figures of one affiliate (metrics projection); zeros when the service sent none. */
export function presentAffiliateMetrics(affiliate: Affiliate) {
  const metrics = affiliate.metrics;
  return {
    volume_usd: metrics?.volumeUsd ?? '0',
    revenue_usd: metrics?.revenueUsd ?? '0',
    conversions: count(metrics?.conversions ?? '0', 'conversions'),
    end_users: count(metrics?.endUsers ?? '0', 'end_users'),
    converting_users: count(metrics?.convertingUsers ?? '0', 'converting_users'),
    referred_volume_usd: metrics?.referredVolumeUsd ?? '0',
    clicks: count(metrics?.clicks ?? '0', 'clicks'),
    earnings: (metrics?.earnings ?? []).map(presentEarning),
    agency_earnings: (metrics?.agencyEarnings ?? []).map(presentEarning),
    tier_protection_days_remaining: affiliate.tierProtection?.daysRemaining ?? null,
  };
}

/**
 * An item of the affiliate list: the affiliate, its tax status, then its figures. Assembled with
 * Object.assign, not as `{ ...presentAffiliate(a), tax_status, ...presentAffiliateMetrics(a) }`:
 * V8 takes a slow path for those two spreads of objects this size (measured: ~40 µs and much
 * garbage per item, over 1 ms of the gateway's CPU per page of 25; Object.assign: well under
 * 1 µs). The keys come out in the same order either way.
 */
export function presentAffiliateListItem(affiliate: Affiliate, taxStatus: EffectiveTaxStatus) {
  return Object.assign(
    presentAffiliate(affiliate),
    { tax_status: nameOf(EffectiveTaxStatus, taxStatus, 'tax_status') },
    presentAffiliateMetrics(affiliate),
  );
}

/** An amount per currency in the list's item shape, from either message that carries one (agency.proto's or activity.proto's). */
export function presentEarning(earning: Earning | EarnedInCurrency) {
  return {
    // "" is a point currency's (no address).
    currency_address: earning.currencyAddress || null,
    currency_chain_id: earningChainId(earning.currencyChainId),
    currency_name: earning.currencyName ?? null,
    currency_decimals: earning.currencyDecimals ?? null,
    amount: earning.amount,
  };
}
