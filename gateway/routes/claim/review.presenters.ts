import type { ConversionReview, ReviewSettings } from '../../../gen/referral/claim/v1/review';
import { ReviewDecision, ReviewRule, ReviewStatus } from '../../../gen/referral/claim/v1/enums';
import { nameOf, optionalNameOf, required } from '../../http/present';

export function presentReviewSettings(settings: ReviewSettings) {
  return {
    max_conversions_per_user_per_hour: settings.maxConversionsPerUserPerHour ?? null,
    min_seconds_from_referral_to_conversion: settings.minSecondsFromReferralToConversion ?? null,
    max_reward_per_conversion: settings.maxRewardPerConversion ?? null,
    updated_at: settings.updatedAt?.toISOString() ?? null,
  };
}

export function presentConversionReview(review: ConversionReview) {
  const user = required(review.user, 'user');
  return {
    conversion_id: review.conversionId,
    user_identifier: user.identifier,
    user_identifier_type: user.identifierType,
    rules: review.rules.map((rule) => ({ rule: nameOf(ReviewRule, rule.rule, 'rules.rule'), limit: rule.limit, actual: rule.actual })),
    flagged_at: required(review.flaggedAt, 'flagged_at').toISOString(),
    status: nameOf(ReviewStatus, review.status, 'status'),
    decided_at: review.decidedAt?.toISOString() ?? null,
    decision: optionalNameOf(ReviewDecision, review.decision, 'decision'),
  };
}
