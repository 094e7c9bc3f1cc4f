import type { Application, ApplicationDecisionResult, Master, SubAffiliate } from '../../../gen/referral/agency/v1/agency';
import { AffiliateStatus, ApplicationStatus } from '../../../gen/referral/agency/v1/enums';
import { enumValue } from '../../common/enums';
import type { DecisionResult } from '../domain/application.service';
import type { MasterDetail } from '../domain/master.service';
import type { ApplicationRecord } from '../repositories/application.repository';
import type { MasterRecord, SubAffiliateRecord } from '../repositories/master.repository';

/**
 * Volume and earnings come from affiliate metrics and the ledger, which later issues add; until
 * then they read zero and empty, as the contract says.
 */
const NO_VOLUME = '0';

export function toMasterMessage(master: MasterRecord | MasterDetail): Master {
  return {
    id: master.id,
    user: master.user,
    name: master.name,
    status: enumValue(AffiliateStatus, master.status),
    spreadBps: master.spreadBps,
    subAffiliatesCount: String(master.subAffiliatesCount),
    referredVolumeUsd: NO_VOLUME,
    earnings: [],
    designatedAt: master.designatedAt,
    spreadHistory:
      'spreadHistory' in master
        ? master.spreadHistory.map((period) => ({ spreadBps: period.spreadBps, validFrom: period.validFrom, validTo: period.validTo ?? undefined }))
        : [],
  };
}

export function toSubAffiliateMessage(sub: SubAffiliateRecord): SubAffiliate {
  return {
    id: sub.id,
    user: sub.user,
    name: sub.name,
    status: enumValue(AffiliateStatus, sub.status),
    boundAt: sub.boundAt,
    referredVolumeUsd: NO_VOLUME,
    earnings: [],
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
