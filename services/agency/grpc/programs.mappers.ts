import type { EarnedInCurrency } from '../../../gen/referral/agency/v1/activity';
import type { Application, ApplicationDecisionResult, Master, ProgramSettings, SubAffiliate } from '../../../gen/referral/agency/v1/agency';
import type { Money } from '../../../gen/referral/common/v1/common';
import { AffiliateStatus, ApplicationStatus, AttributionModel } from '../../../gen/referral/agency/v1/enums';
import { enumValue } from '../../rules/enums';
import type { DecisionResult } from '../domain/application.service';
import type { DesignatedMaster, MasterDetail, MasterView } from '../domain/master.service';
import type { EarningRecord } from '../repositories/affiliate-metrics.repository';
import type { ApplicationRecord } from '../repositories/application.repository';
import type { ProgramSettingsRecord } from '../repositories/program-settings.repository';
import type { SubAffiliateRecord } from '../repositories/master-metrics.repository';

/** An amount earned in a currency, with the currency's details when the projection knows them (as an Earning or an EarnedInCurrency: the same fields). */
export function toEarnedInCurrency(earning: EarningRecord): EarnedInCurrency {
  return {
    currencyId: earning.currencyId,
    currencyChainId: earning.currency?.chainId,
    currencyAddress: earning.currency?.address,
    currencyName: earning.currency?.name,
    currencyDecimals: earning.currency?.decimals,
    amount: earning.amount.toString(),
  };
}

const toMoney = (earning: EarningRecord): Money => ({ currencyId: earning.currencyId, amount: earning.amount.toString() });

export function toMasterMessage(master: MasterView | MasterDetail | DesignatedMaster): Master {
  return {
    id: master.id,
    user: master.user,
    name: master.name,
    status: enumValue(AffiliateStatus, master.status),
    spreadBps: master.spreadBps,
    subAffiliatesCount: String(master.subAffiliatesCount),
    referredVolumeUsd: master.referredVolumeUsd,
    earnings: master.earnings.map(toMoney),
    currencyEarnings: master.earnings.map(toEarnedInCurrency),
    designatedAt: master.designatedAt,
    spreadHistory:
      'spreadHistory' in master
        ? master.spreadHistory.map((period) => ({ spreadBps: period.spreadBps, validFrom: period.validFrom, validTo: period.validTo ?? undefined }))
        : [],
    unboundFrom:
      'unboundFrom' in master && master.unboundFrom
        ? { id: master.unboundFrom.id, identifier: master.unboundFrom.user.identifier, identifierType: master.unboundFrom.user.identifierType }
        : undefined,
  };
}

export function toProgramSettingsMessage(settings: ProgramSettingsRecord): ProgramSettings {
  return {
    programUrl: settings.programUrl ?? undefined,
    linkTemplate: settings.linkTemplate ?? undefined,
    updatedAt: settings.updatedAt ?? undefined,
    attributionWindowDays: settings.attributionWindowDays,
    attributionModel: enumValue(AttributionModel, settings.attributionModel),
  };
}

export function toSubAffiliateMessage(sub: SubAffiliateRecord): SubAffiliate {
  return {
    id: sub.id,
    user: sub.user,
    name: sub.name,
    status: enumValue(AffiliateStatus, sub.status),
    boundAt: sub.boundAt,
    unboundAt: sub.unboundAt ?? undefined,
    bound: sub.bound,
    referredVolumeUsd: sub.referredVolumeUsd,
    referredConversions: String(sub.referredConversions),
    volumeUsd: sub.volumeUsd,
    revenueUsd: sub.revenueUsd,
    conversions: String(sub.conversions),
    earnings: sub.earnings.map(toMoney),
    currencyEarnings: sub.earnings.map(toEarnedInCurrency),
    agencyEarnings: sub.agencyEarnings.map(toEarnedInCurrency),
  };
}

export function toApplicationMessage(application: ApplicationRecord): Application {
  return {
    id: application.id,
    user: application.user,
    name: application.name,
    region: application.region ?? undefined,
    message: application.message ?? undefined,
    code: application.code ?? undefined,
    status: enumValue(ApplicationStatus, application.status),
    createdAt: application.createdAt,
    updatedAt: application.updatedAt,
    holdNote: application.holdNote ?? undefined,
    heldAt: application.heldAt ?? undefined,
    decidedAt: application.decidedAt ?? undefined,
    rejectionReason: application.rejectionReason ?? undefined,
    audienceId: application.audienceId ?? undefined,
    affiliateId: application.affiliateId ?? undefined,
    grantedCode: application.grantedCode ?? undefined,
  };
}

export function toDecisionResultMessage(result: DecisionResult): ApplicationDecisionResult {
  if ('error' in result) {
    const { code, message, details } = result.error;
    return { applicationId: result.applicationId, application: undefined, error: { code, message, details } };
  }
  return { applicationId: result.applicationId, application: toApplicationMessage(result.application), error: undefined };
}
