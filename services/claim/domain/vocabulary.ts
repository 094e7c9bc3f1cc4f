import {
  ClaimCheckStatus as ClaimCheckStatusEnum,
  ClaimReason as ClaimReasonEnum,
  ConversionStatus as ConversionStatusEnum,
  ReviewDecision as ReviewDecisionEnum,
  ReviewRule as ReviewRuleEnum,
  ReviewStatus as ReviewStatusEnum,
  CurrencyType as CurrencyTypeEnum,
  LeaderboardUserType as LeaderboardUserTypeEnum,
  MovementKind as MovementKindEnum,
  MovementStatus as MovementStatusEnum,
  PendingReason as PendingReasonEnum,
  DecisionOutcome as DecisionOutcomeEnum,
} from '../../../gen/referral/claim/v1/enums';
import { type EnumName, enumNames } from '../../rules/enums';

/**
 * The claim service's vocabularies, as the domain, the tables and the API spell them
 * ("agency_payout"). Each is derived from its enum in proto/referral/claim/v1/enums.proto: add a
 * value there, and every exhaustive map over it stops compiling until it is handled.
 */
export type CurrencyType = EnumName<typeof CurrencyTypeEnum>;
export type ConversionStatus = EnumName<typeof ConversionStatusEnum>;
export type MovementKind = EnumName<typeof MovementKindEnum>;
export type ClaimReason = EnumName<typeof ClaimReasonEnum>;
export type ClaimCheckStatus = EnumName<typeof ClaimCheckStatusEnum>;
export type LeaderboardUserType = EnumName<typeof LeaderboardUserTypeEnum>;
/** Where a movement stands: pending (in no check), available (in a check), declined (never paid). */
export type MovementStatus = EnumName<typeof MovementStatusEnum>;
/** Why a pending movement waits. */
export type PendingReason = EnumName<typeof PendingReasonEnum>;
/** What an approve or decline did to one conversion's movements. */
export type DecisionOutcome = EnumName<typeof DecisionOutcomeEnum>;

export const CURRENCY_TYPES = enumNames(CurrencyTypeEnum);

/** The claim check a movement accumulates into: one reason per kind (Fuul v2's ClaimReason). */
export const REASON_OF_KIND: Record<MovementKind, ClaimReason> = {
  affiliate_payout: 'affiliate',
  end_user_payout: 'end_user',
  agency_payout: 'agency',
};

/** Review rules (docs/claims.md#review-rules): each named as the review setting that sets its limit. */
export type ReviewRule = EnumName<typeof ReviewRuleEnum>;
export type ReviewStatus = EnumName<typeof ReviewStatusEnum>;
export type ReviewDecision = EnumName<typeof ReviewDecisionEnum>;
