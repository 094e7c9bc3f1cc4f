import {
  anyReviewRule,
  brokenReviewRules,
  type ConversionFacts,
  NO_REVIEW_RULES,
  type ReviewSettings,
  secondsFromReferral,
} from '../../../services/claim/domain/review-rules';

/** The review rules as a pure function (docs/claims.md#review-rules): which rules a conversion breaks, with their figures. */
describe('review rules', () => {
  const facts = (fields: Partial<ConversionFacts> = {}): ConversionFacts => ({
    otherConversionsInHour: 0,
    secondsFromReferral: 3_600,
    totalReward: 1_000n,
    ...fields,
  });
  const settings = (fields: Partial<ReviewSettings>): ReviewSettings => ({ ...NO_REVIEW_RULES, ...fields });

  it('breaks nothing while every rule is off, whatever the facts', () => {
    expect(anyReviewRule(NO_REVIEW_RULES)).toBe(false);
    expect(
      brokenReviewRules(NO_REVIEW_RULES, facts({ otherConversionsInHour: 1_000_000, secondsFromReferral: -5, totalReward: 10n ** 70n })),
    ).toEqual([]);
  });

  it.each([
    [0, 1, []],
    [1, 1, [{ rule: 'max_conversions_per_user_per_hour', limit: 1n, actual: 2n }]],
    [2, 3, []],
    [3, 3, [{ rule: 'max_conversions_per_user_per_hour', limit: 3n, actual: 4n }]],
    [999_999, 1_000_000, []],
  ])('counts this conversion with the %i others of its hour against a limit of %i', (others, limit, expected) => {
    expect(anyReviewRule(settings({ maxConversionsPerUserPerHour: limit }))).toBe(true);
    expect(brokenReviewRules(settings({ maxConversionsPerUserPerHour: limit }), facts({ otherConversionsInHour: others }))).toEqual(expected);
  });

  it.each([
    [59, 60, [{ rule: 'min_seconds_from_referral_to_conversion', limit: 60n, actual: 59n }]],
    [60, 60, []],
    [0, 0, []],
    [-1, 0, [{ rule: 'min_seconds_from_referral_to_conversion', limit: 0n, actual: -1n }]],
    [31_535_999, 31_536_000, [{ rule: 'min_seconds_from_referral_to_conversion', limit: 31_536_000n, actual: 31_535_999n }]],
  ])('reviews a conversion %i s after the referral against a minimum of %i s', (seconds, limit, expected) => {
    expect(brokenReviewRules(settings({ minSecondsFromReferralToConversion: limit }), facts({ secondsFromReferral: seconds }))).toEqual(expected);
  });

  it('leaves the referral rule out for a user nobody referred, and the reward rule for a conversion that pays nothing', () => {
    const all = settings({ minSecondsFromReferralToConversion: 86_400, maxRewardPerConversion: 0n });
    expect(brokenReviewRules(all, facts({ secondsFromReferral: null, totalReward: null }))).toEqual([]);
  });

  it('reviews a total reward above the limit, exactly in base units past 2^53', () => {
    const limit = 2n ** 200n;
    const rule = settings({ maxRewardPerConversion: limit });
    expect(brokenReviewRules(rule, facts({ totalReward: limit }))).toEqual([]);
    expect(brokenReviewRules(rule, facts({ totalReward: limit + 1n }))).toEqual([{ rule: 'max_reward_per_conversion', limit, actual: limit + 1n }]);
    expect(brokenReviewRules(settings({ maxRewardPerConversion: 0n }), facts({ totalReward: 1n }))).toEqual([
      { rule: 'max_reward_per_conversion', limit: 0n, actual: 1n },
    ]);
  });

  it('answers every rule broken at once, in the vocabulary’s order', () => {
    const all = settings({ maxConversionsPerUserPerHour: 1, minSecondsFromReferralToConversion: 600, maxRewardPerConversion: 500n });
    expect(brokenReviewRules(all, facts({ otherConversionsInHour: 4, secondsFromReferral: 30, totalReward: 501n }))).toEqual([
      { rule: 'max_conversions_per_user_per_hour', limit: 1n, actual: 5n },
      { rule: 'min_seconds_from_referral_to_conversion', limit: 600n, actual: 30n },
      { rule: 'max_reward_per_conversion', limit: 500n, actual: 501n },
    ]);
  });

  it('measures whole seconds from referral to conversion, rounded down', () => {
    const referredAt = new Date('2026-11-21T12:00:00.000Z');
    expect(secondsFromReferral(referredAt, new Date('2026-11-21T12:00:59.999Z'))).toBe(59);
    expect(secondsFromReferral(referredAt, new Date('2026-11-21T12:01:00.000Z'))).toBe(60);
    expect(secondsFromReferral(referredAt, new Date('2026-11-21T11:59:59.500Z'))).toBe(-1);
  });
});
