import { outcomeSentence, ruleChanges, ruleProblems, ruleSentence, ruleValues } from '../../../web/src/admin/review/review';

/**
 * The dashboard's review page in words: each broken rule a sentence with its figures (grouped,
 * digit for digit), each decision's outcome a sentence, and the settings form's PATCH body (only
 * the rules changed, off as null, the reward limit as its exact decimal string).
 */
describe('the review queue’s sentences', () => {
  it('writes each broken rule with its figures, grouped and exact', () => {
    expect(ruleSentence({ rule: 'max_conversions_per_user_per_hour', limit: '1000', actual: '1001' })).toBe(
      "Its user's conversion number 1,001 in the hour ending at it; the limit is 1,000 an hour.",
    );
    expect(ruleSentence({ rule: 'min_seconds_from_referral_to_conversion', limit: '60', actual: '5' })).toBe(
      "It came 5 seconds after its user's referral; at least 60 seconds are required.",
    );
    // Past what a float holds: every digit kept.
    expect(ruleSentence({ rule: 'max_reward_per_conversion', limit: '9007199254740993', actual: '9007199254740995' })).toBe(
      'Its planned reward is 9,007,199,254,740,995 base units, above the limit of 9,007,199,254,740,993 base units.',
    );
  });

  it.each([
    ['approved', 'order-1: approved. Its payouts are available, or wait for the rest of their hold.'],
    ['declined', 'order-1: declined. Its payouts will never be paid.'],
    ['already_approved', 'order-1: was approved before; nothing changed.'],
    ['already_declined', 'order-1: was declined before; nothing changed.'],
    ['not_pending', 'order-1: nothing of it waits for a decision; nothing changed.'],
    ['not_found', 'order-1: there is no such conversion in this project.'],
  ] as const)('says what %s means', (outcome, sentence) => {
    expect(outcomeSentence({ conversion_id: 'order-1', outcome })).toBe(sentence);
  });
});

describe('the review settings form', () => {
  const stored = {
    max_conversions_per_user_per_hour: 10,
    min_seconds_from_referral_to_conversion: null,
    max_reward_per_conversion: '123456789012345678901234567890',
    updated_at: '2026-11-28T10:00:00.000Z',
  };

  it('sends nothing when nothing changed', () => {
    expect(ruleChanges(ruleValues(stored), ruleValues(stored))).toEqual({});
  });

  it('sends only the rules changed: a rule turned off as null, a count as a number, the reward as its exact string', () => {
    const initial = ruleValues(stored);
    const values = {
      max_conversions_per_user_per_hour: { on: false, limit: '10' },
      min_seconds_from_referral_to_conversion: { on: true, limit: ' 30 ' },
      max_reward_per_conversion: { on: true, limit: '123456789012345678901234567891' },
    };
    expect(ruleChanges(initial, values)).toEqual({
      max_conversions_per_user_per_hour: null,
      min_seconds_from_referral_to_conversion: 30,
      max_reward_per_conversion: '123456789012345678901234567891',
    });
  });

  it('refuses a limit that is not a whole number before sending, and ignores a rule that is off', () => {
    expect(
      ruleProblems({
        max_conversions_per_user_per_hour: { on: true, limit: '1.5' },
        min_seconds_from_referral_to_conversion: { on: true, limit: '' },
        max_reward_per_conversion: { on: false, limit: 'abc' },
      }),
    ).toEqual({ max_conversions_per_user_per_hour: 'Enter a whole number.', min_seconds_from_referral_to_conversion: 'Enter a whole number.' });
  });
});
