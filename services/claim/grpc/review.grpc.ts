import type { ClaimServiceServer } from '../../../gen/referral/claim/v1/claim';
import { ReviewDecision, ReviewRule, ReviewStatus } from '../../../gen/referral/claim/v1/enums';
import type { ConversionReview, ReviewSettings } from '../../../gen/referral/claim/v1/review';
import { enumValue } from '../../rules/enums';
import { optionalEnum } from '../../rules/fields';
import type { UnaryHandlers } from '../../platform/grpc/service';
import { pageInfo, toPage } from '../../rules/pagination';
import type { ClaimDomain } from '../composition';
import type { ConversionReviewRecord } from '../repositories/conversion-review.repository';
import type { ReviewSettingsRecord } from '../repositories/review-settings.repository';

type ReviewRpc = 'getReviewSettings' | 'updateReviewSettings' | 'listConversionReviews';

/** The review half of ClaimService (createClaimGrpcService adds them): translate and delegate. */
export function reviewHandlers(domain: ClaimDomain): Pick<UnaryHandlers<ClaimServiceServer>, ReviewRpc> {
  return {
    getReviewSettings: async (req) => toReviewSettingsMessage(await domain.review.getSettings(req.projectId)),

    updateReviewSettings: async (req) => {
      // The mask says which fields change; a listed field left unset turns its rule off (null). Unknown
      // names reach the domain, which refuses them naming each.
      const given: Record<string, number | string | undefined> = {
        max_conversions_per_user_per_hour: req.maxConversionsPerUserPerHour,
        min_seconds_from_referral_to_conversion: req.minSecondsFromReferralToConversion,
        max_reward_per_conversion: req.maxRewardPerConversion,
      };
      const input: Record<string, number | string | null> = {};
      for (const path of req.updateMask ?? []) input[path] = given[path] ?? null;
      return toReviewSettingsMessage(await domain.review.updateSettings(req.projectId, input));
    },

    listConversionReviews: async (req) => {
      const page = toPage(req.page);
      const { records, total } = await domain.review.list(
        req.projectId,
        { rule: optionalEnum(ReviewRule, req.rule, 'rule'), status: optionalEnum(ReviewStatus, req.status, 'status'), user: req.user },
        page,
      );
      return { results: records.map(toConversionReviewMessage), pageInfo: pageInfo(page, total) };
    },
  };
}

function toReviewSettingsMessage(record: ReviewSettingsRecord): ReviewSettings {
  return {
    maxConversionsPerUserPerHour: record.maxConversionsPerUserPerHour ?? undefined,
    minSecondsFromReferralToConversion: record.minSecondsFromReferralToConversion ?? undefined,
    maxRewardPerConversion: record.maxRewardPerConversion?.toString(),
    updatedAt: record.updatedAt ?? undefined,
  };
}

function toConversionReviewMessage(record: ConversionReviewRecord): ConversionReview {
  return {
    conversionId: record.conversionId,
    user: record.user,
    rules: record.rules.map((rule) => ({ rule: enumValue(ReviewRule, rule.rule), limit: rule.limit.toString(), actual: rule.actual.toString() })),
    flaggedAt: record.flaggedAt,
    status: record.decidedAt === null ? ReviewStatus.OPEN : ReviewStatus.DECIDED,
    decidedAt: record.decidedAt ?? undefined,
    decision: record.decision === null ? ReviewDecision.UNSPECIFIED : enumValue(ReviewDecision, record.decision),
  };
}
