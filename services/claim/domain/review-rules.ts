import type { ReviewRule } from './vocabulary';

/**
 * Review rules (docs/claims.md#review-rules): a project's limits, each null while its rule is off, and
 * the pure check of one conversion's facts against them. The payment path gathers the facts of a batch
 * (ReviewFactsRepository, the attribution's referred_at, the planned movements) and flags a conversion
 * that breaks any rule; its movements then wait for review.
 */
export interface ReviewSettings {
  /** 1 to 1,000,000: more of one user's conversions in an hour are reviewed. */
  maxConversionsPerUserPerHour: number | null;
  /** 0 to 31,536,000: a conversion sooner than this after its user's referral is reviewed. */
  minSecondsFromReferralToConversion: number | null;
  /** Base units of the conversion's currency: a conversion whose total planned reward is above it is reviewed. */
  maxRewardPerConversion: bigint | null;
}

export const NO_REVIEW_RULES: ReviewSettings = {
  maxConversionsPerUserPerHour: null,
  minSecondsFromReferralToConversion: null,
  maxRewardPerConversion: null,
};

/** The limits each setting may take (the API refuses values outside them, naming the field). */
export const REVIEW_LIMITS = {
  maxConversionsPerUserPerHour: { min: 1, max: 1_000_000 },
  minSecondsFromReferralToConversion: { min: 0, max: 31_536_000 },
} as const;

/** What the rules read about one conversion. */
export interface ConversionFacts {
  /**
   * The same user's other conversions of the project (any name, any status) that occurred in the hour
   * ending at this one: occurred_at in (at − 1 h, at]. This one is added to it.
   */
  otherConversionsInHour: number;
  /** Whole seconds from the user's referral to the conversion (secondsFromReferral); null when nobody referred the user. */
  secondsFromReferral: number | null;
  /** The sum of the conversion's planned movements (every kind), base units of its currency; null when it pays nothing. */
  totalReward: bigint | null;
}

/** One broken rule with its figures: the setting's limit, and the conversion's figure that broke it. */
export interface BrokenRule {
  rule: ReviewRule;
  limit: bigint;
  actual: bigint;
}

/**
 * The rules the conversion breaks, in the vocabulary's order (empty: it needs no review).
 * - max_conversions_per_user_per_hour: the conversions of the hour ending at this one, this one
 *   included, above the limit (a limit of 3 lets the third of an hour through and reviews the fourth).
 * - min_seconds_from_referral_to_conversion: fewer whole seconds from referral to conversion than the
 *   limit (0 reviews only a conversion before its referral, which attribution never pays).
 * - max_reward_per_conversion: the total planned reward above the limit (equal passes).
 */
export function brokenReviewRules(settings: ReviewSettings, facts: ConversionFacts): BrokenRule[] {
  const broken: BrokenRule[] = [];
  if (settings.maxConversionsPerUserPerHour !== null) {
    const inHour = facts.otherConversionsInHour + 1;
    if (inHour > settings.maxConversionsPerUserPerHour) {
      broken.push({ rule: 'max_conversions_per_user_per_hour', limit: BigInt(settings.maxConversionsPerUserPerHour), actual: BigInt(inHour) });
    }
  }
  if (settings.minSecondsFromReferralToConversion !== null && facts.secondsFromReferral !== null) {
    if (facts.secondsFromReferral < settings.minSecondsFromReferralToConversion) {
      broken.push({
        rule: 'min_seconds_from_referral_to_conversion',
        limit: BigInt(settings.minSecondsFromReferralToConversion),
        actual: BigInt(facts.secondsFromReferral),
      });
    }
  }
  if (settings.maxRewardPerConversion !== null && facts.totalReward !== null && facts.totalReward > settings.maxRewardPerConversion) {
    broken.push({ rule: 'max_reward_per_conversion', limit: settings.maxRewardPerConversion, actual: facts.totalReward });
  }
  return broken;
}

/** Whole seconds from `from` to `to`, rounded down (negative when `to` is earlier). */
export function secondsFromReferral(referredAt: Date, occurredAt: Date): number {
  return Math.floor((occurredAt.getTime() - referredAt.getTime()) / 1000);
}

/** Whether any rule is on: with none, the payment path need not gather facts. */
export function anyReviewRule(settings: ReviewSettings): boolean {
  return (
    settings.maxConversionsPerUserPerHour !== null || settings.minSecondsFromReferralToConversion !== null || settings.maxRewardPerConversion !== null
  );
}
