import type { EarnedInCurrency } from '../../../gen/referral/agency/v1/activity';
import type {
  Affiliate,
  Application,
  ApplicationDecisionResult,
  Master,
  ProgramSettings,
  SubAffiliate,
} from '../../../gen/referral/agency/v1/agency';
import { AffiliateStatus, ApplicationStatus, AttributionModel } from '../../../gen/referral/agency/v1/enums';
import type { UserRef } from '../../../gen/referral/common/v1/common';
import { DEFAULT_LINK_TEMPLATE, effectiveLinkTemplate, type LinkSettings, referralLink } from '../../../services/rules/referral-link';
import { count, nameOf, required } from '../../http/present';
import { earningChainId } from '../../../services/rules/payout-vocabulary';
import { presentAffiliate, presentUser } from './agency.presenters';

/** gRPC messages -> the JSON of programs.schemas.ts. */

/** What a master and a sub-affiliate answer first: the affiliate's id, user, name and status. */
function presentAffiliateHead(affiliate: { id: string; user?: UserRef; name: string; status: AffiliateStatus }) {
  return {
    id: affiliate.id,
    ...presentUser(affiliate.user),
    name: affiliate.name,
    status: nameOf(AffiliateStatus, affiliate.status, 'status'),
  };
}

export function presentEarning(earning: EarnedInCurrency) {
  return {
    currency_id: earning.currencyId,
    currency_chain_id: earningChainId(earning.currencyChainId),
    // "" is a point currency's (no address).
    currency_address: earning.currencyAddress || null,
    currency_name: earning.currencyName ?? null,
    currency_decimals: earning.currencyDecimals ?? null,
    amount: earning.amount,
  };
}

export function presentMaster(master: Master) {
  return {
    ...presentAffiliateHead(master),
    spread_bps: master.spreadBps,
    sub_affiliates_count: count(master.subAffiliatesCount, 'sub_affiliates_count'),
    referred_volume_usd: master.referredVolumeUsd,
    designated_at: required(master.designatedAt, 'designated_at').toISOString(),
    earnings: master.currencyEarnings.map(presentEarning),
  };
}

export function presentMasterDetail(master: Master) {
  return {
    ...presentMaster(master),
    spread_history: master.spreadHistory.map((period) => ({
      spread_bps: period.spreadBps,
      valid_from: required(period.validFrom, 'spread_history.valid_from').toISOString(),
      valid_to: period.validTo?.toISOString() ?? null,
    })),
  };
}

function linkSettings(settings: ProgramSettings): LinkSettings {
  return { programUrl: settings.programUrl ?? null, linkTemplate: settings.linkTemplate ?? null };
}

export function presentProgramSettings(settings: ProgramSettings) {
  const link = linkSettings(settings);
  return {
    program_url: link.programUrl,
    link_template: effectiveLinkTemplate(link),
    default_link_template: DEFAULT_LINK_TEMPLATE,
    example_link: referralLink(link, 'EXAMPLE'),
    updated_at: settings.updatedAt?.toISOString() ?? null,
    attribution_window_days: settings.attributionWindowDays,
    attribution_model: nameOf(AttributionModel, settings.attributionModel, 'attribution_model'),
  };
}

/** The portal's affiliate: each code with its link, made by the one rule of services/rules/referral-link.ts. */
export function presentPortalAffiliate(affiliate: Affiliate, settings: ProgramSettings) {
  const link = linkSettings(settings);
  const base = presentAffiliate(affiliate);
  return { ...base, codes: base.codes.map((code) => ({ ...code, link: referralLink(link, code.code) })), program_url: link.programUrl };
}

/** The answer of a designation: the detail, and the master a sub-affiliate was unbound from by it. */
export function presentDesignatedMaster(master: Master) {
  const from = master.unboundFrom;
  return {
    ...presentMasterDetail(master),
    unbound_from: from ? { id: from.id, identifier: from.identifier, identifier_type: from.identifierType } : null,
  };
}

export function presentSubAffiliate(sub: SubAffiliate) {
  return {
    ...presentAffiliateHead(sub),
    bound: sub.bound,
    bound_at: required(sub.boundAt, 'bound_at').toISOString(),
    unbound_at: sub.unboundAt?.toISOString() ?? null,
    referred_volume_usd: sub.referredVolumeUsd,
    referred_conversions: count(sub.referredConversions, 'referred_conversions'),
    agency_earnings: sub.agencyEarnings.map(presentEarning),
    volume_usd: sub.volumeUsd,
    revenue_usd: sub.revenueUsd,
    conversions: count(sub.conversions, 'conversions'),
    earnings: sub.currencyEarnings.map(presentEarning),
  };
}

export function presentApplication(application: Application) {
  return {
    id: application.id,
    ...presentUser(application.user),
    name: application.name,
    region: application.region ?? null,
    message: application.message ?? null,
    code: application.code ?? null,
    status: nameOf(ApplicationStatus, application.status, 'status'),
    created_at: required(application.createdAt, 'created_at').toISOString(),
    updated_at: required(application.updatedAt, 'updated_at').toISOString(),
    hold_note: application.holdNote ?? null,
    held_at: application.heldAt?.toISOString() ?? null,
    decided_at: application.decidedAt?.toISOString() ?? null,
    rejection_reason: application.rejectionReason ?? null,
    audience_id: application.audienceId ?? null,
    affiliate_id: application.affiliateId ?? null,
    granted_code: application.grantedCode ?? null,
  };
}

export function presentDecisionResult(result: ApplicationDecisionResult) {
  return {
    application_id: result.applicationId,
    ok: result.error === undefined,
    application: result.application ? presentApplication(result.application) : null,
    error: result.error ? { code: result.error.code, message: result.error.message, details: result.error.details } : null,
  };
}
