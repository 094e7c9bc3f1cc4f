import type { Affiliate, AffiliateMetrics, AffiliateRef, Attribution, GetReferrerResponse, Referral } from '../../../gen/referral/agency/v1/agency';
import { AffiliateStatus, AttributionOutcome } from '../../../gen/referral/agency/v1/enums';
import { enumValue, optionalEnumValue } from '../../rules/enums';
import type { AttributionResult } from '../domain/attribution.service';
import type { AffiliateView } from '../domain/affiliate-details.service';
import type { AffiliateMetricsRecord } from '../repositories/affiliate-metrics.repository';
import type { AffiliateCodeStatsRecord } from '../repositories/affiliate-record';
import type { AffiliateRefRecord, ReferralRecord, ReferrerRecord } from '../repositories/referral.repository';
import { toEarnedInCurrency } from './programs.mappers';

/** Records -> protobuf messages: nulls become absent optional fields, vocabularies become their enums. */
/** `codeStats`: each code's figures, by code as registered (GetAffiliate only; without them the codes carry none). */
export function toAffiliateMessage(affiliate: AffiliateView, codeStats?: Map<string, AffiliateCodeStatsRecord>): Affiliate {
  return {
    id: affiliate.id,
    user: affiliate.user,
    name: affiliate.name,
    region: affiliate.region ?? undefined,
    status: enumValue(AffiliateStatus, affiliate.status),
    codes: affiliate.codes.map((code) => {
      const stats = codeStats?.get(code.code);
      return {
        code: code.code,
        uses: String(code.uses),
        createdAt: code.createdAt,
        userRebateRateBps: code.userRebateRateBps ?? undefined,
        stats: stats && { clicks: String(stats.clicks), earnings: stats.earnings },
      };
    }),
    master: affiliate.master ? toAffiliateRef(affiliate.master) : undefined,
    isMaster: affiliate.isMaster,
    currentTier: affiliate.currentTier ?? undefined,
    activeTier: affiliate.activeTier ?? undefined,
    tierProtection: affiliate.tierProtection ?? undefined,
    joinedAt: affiliate.joinedAt,
    updatedAt: affiliate.updatedAt,
    suspendedAt: affiliate.suspendedAt ?? undefined,
    suspensionReason: affiliate.suspensionReason ?? undefined,
    flaggedAt: affiliate.flaggedAt ?? undefined,
    flagReason: affiliate.flagReason ?? undefined,
  };
}

export function toAffiliateRef(affiliate: AffiliateRefRecord): AffiliateRef {
  return { id: affiliate.id, identifier: affiliate.user.identifier, identifierType: affiliate.user.identifierType };
}

export function toReferralMessage(referral: ReferralRecord): Referral {
  return { user: referral.user, affiliate: toAffiliateRef(referral.affiliate), code: referral.code, referredAt: referral.referredAt };
}

export function toReferrerMessage(referrer: ReferrerRecord | undefined): GetReferrerResponse {
  if (!referrer) return { referral: undefined, referrerName: undefined, referrerCodes: [] };
  return {
    referral: toReferralMessage(referrer.referral),
    referrerName: referrer.name,
    referrerCodes: referrer.codes,
    referrerUserRebateRateBps: referrer.referralCodeRebateRateBps ?? undefined,
  };
}

export function toAttributionMessage(result: AttributionResult): Attribution {
  if ('error' in result) {
    const { code, message, details } = result.error;
    return {
      outcome: AttributionOutcome.UNSPECIFIED,
      affiliateStatus: AffiliateStatus.UNSPECIFIED,
      spreadBps: 0,
      affiliateFlagged: false,
      userRebateRateBps: 0,
      ancestors: [],
      error: { code, message, details },
    };
  }
  return {
    outcome: enumValue(AttributionOutcome, result.outcome),
    affiliate: result.affiliate ? toAffiliateRef(result.affiliate) : undefined,
    code: result.code ?? undefined,
    referredAt: result.referredAt ?? undefined,
    affiliateStatus: optionalEnumValue(AffiliateStatus, result.affiliateStatus) ?? AffiliateStatus.UNSPECIFIED,
    master: result.master ? toAffiliateRef(result.master) : undefined,
    spreadBps: result.spreadBps,
    activeTierId: result.activeTierId ?? undefined,
    affiliateFlagged: result.affiliateFlagged,
    userRebateRateBps: result.userRebateRateBps,
    ancestors: result.ancestors.map((ancestor) => ({ level: ancestor.level, affiliate: toAffiliateRef(ancestor.affiliate) })),
  };
}

export function toAffiliateMetricsMessage(metrics: AffiliateMetricsRecord): AffiliateMetrics {
  return {
    volumeUsd: metrics.volumeUsd,
    revenueUsd: metrics.revenueUsd,
    conversions: metrics.conversions.toString(),
    endUsers: metrics.endUsers.toString(),
    convertingUsers: metrics.convertingUsers.toString(),
    referredVolumeUsd: metrics.referredVolumeUsd,
    clicks: metrics.clicks.toString(),
    earnings: metrics.earnings.map(toEarnedInCurrency),
    agencyEarnings: metrics.agencyEarnings.map(toEarnedInCurrency),
  };
}
