import * as enums from '../../../gen/referral/claim/v1/enums';
import { enumNames, type Vocabularies } from '../../rules/enums';

/**
 * The claim service's vocabularies, as the domain, the tables and the API spell them
 * ("agency_payout"). Each is derived from its enum in proto/referral/claim/v1/enums.proto: add a
 * value there, and every exhaustive map over it stops compiling until it is handled.
 */
type Vocabulary = Vocabularies<typeof enums>;

export type CurrencyType = Vocabulary['CurrencyType'];
/** Which currencies a read takes: chain (erc20, native) or point. */
export type CurrencyFamily = Vocabulary['CurrencyFamily'];
export type ConversionStatus = Vocabulary['ConversionStatus'];
export type MovementKind = Vocabulary['MovementKind'];
export type ClaimReason = Vocabulary['ClaimReason'];
export type ClaimCheckStatus = Vocabulary['ClaimCheckStatus'];
export type LeaderboardUserType = Vocabulary['LeaderboardUserType'];
/** Where a movement stands: pending (in no check), available (in a check), declined (never paid). */
export type MovementStatus = Vocabulary['MovementStatus'];
/** Why a pending movement waits. */
export type PendingReason = Vocabulary['PendingReason'];
/** The payout terms' cap that cut a movement. */
export type CapKind = Vocabulary['CapKind'];
/** What an approve or decline did to one conversion's movements. */
export type DecisionOutcome = Vocabulary['DecisionOutcome'];
/** Where the money a reversal took from a movement was (migration 0012). */
export type ReversedFrom = Vocabulary['ReversedFrom'];

export const CURRENCY_TYPES = enumNames(enums.CurrencyType);

/** The claim check a movement accumulates into: one reason per kind (Fuul v2's ClaimReason). */
export const REASON_OF_KIND: Record<MovementKind, ClaimReason> = {
  affiliate_payout: 'affiliate',
  end_user_payout: 'end_user',
  agency_payout: 'agency',
};

/** Review rules (docs/claims.md#review-rules): each named as the review setting that sets its limit. */
export type ReviewRule = Vocabulary['ReviewRule'];
export type ReviewStatus = Vocabulary['ReviewStatus'];
export type ReviewDecision = Vocabulary['ReviewDecision'];
