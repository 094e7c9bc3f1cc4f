import { randomUUID } from 'node:crypto';
import type { UserIdentifier } from '../../../services/rules/identifiers';
import {
  affiliateReward,
  allowlistQuestions,
  type Attribution,
  type IsMember,
  type PayoutTermsView,
  planPayouts,
  splitRebate,
} from '../../../services/claim/domain/payouts';
import { checkReward, rewardAmount, shareOf } from '../../../services/claim/domain/reward';
import { AMOUNT_RANGE } from '../../../services/rules/money';
import { evmAddress } from '../../helpers/evm-addresses';

/**
 * The money arithmetic of one conversion (services/claim/domain/payouts.ts and reward.ts), case by
 * case: fixed and bps rewards, flooring, tiers, the master's spread, no terms, zero amounts, and
 * the allowlists of the terms (who may earn each side, the master's spread following its affiliate), and
 * the rebate split from the affiliate's reward for the user it referred.
 */
const user: UserIdentifier = { identifier: evmAddress(1), identifierType: 'evm_address' };
const affiliateUser: UserIdentifier = { identifier: evmAddress(2), identifierType: 'evm_address' };
const masterUser: UserIdentifier = { identifier: evmAddress(3), identifierType: 'evm_address' };
const CURRENCY = randomUUID();
const GOLD = randomUUID();
const SILVER = randomUUID();

const terms = (fields: Partial<PayoutTermsView> = {}): PayoutTermsView => ({
  currencyId: CURRENCY,
  endUser: null,
  affiliate: null,
  upline: {},
  tiers: [],
  endUserAllowlistAudienceId: null,
  affiliateAllowlistAudienceId: null,
  ...fields,
});
const attributed = (fields: Partial<Attribution> = {}): Attribution => ({
  affiliate: { id: 'aff-1', user: affiliateUser },
  master: null,
  upline: [],
  tierId: null,
  rebateBps: 0,
  ...fields,
});
const withMaster = (spreadBps: number, tierId: string | null = null): Attribution =>
  attributed({ master: { affiliate: { id: 'master-1', user: masterUser }, spreadBps }, tierId });
const amounts = (plan: ReturnType<typeof planPayouts>) =>
  plan.movements.map((movement) => [movement.kind, movement.beneficiary.identifier, movement.amount]);

describe('payout arithmetic (domain)', () => {
  describe('a reward', () => {
    it.each([
      ['a fixed reward pays itself whatever the base', { fixed: 1_500n }, 0n, 1_500n],
      ['a fixed reward of 0 pays 0', { fixed: 0n }, 10n ** 30n, 0n],
      ['bps of a base: 250 bps of 10,000', { bps: 250 }, 10_000n, 250n],
      ['bps floors: 1 bps of 9,999 is 0', { bps: 1 }, 9_999n, 0n],
      ['bps floors: 3,333 bps of 10 is 3 (3.333)', { bps: 3_333 }, 10n, 3n],
      ['bps floors: 9,999 bps of 1 is 0', { bps: 9_999 }, 1n, 0n],
      ['10,000 bps is the whole base', { bps: 10_000 }, 123_456_789n, 123_456_789n],
      ['0 bps is nothing', { bps: 0 }, 123_456_789n, 0n],
      ['bps of a base past 2^64 stays exact', { bps: 7 }, 2n ** 200n + 12_345n, ((2n ** 200n + 12_345n) * 7n) / 10_000n],
      ['bps of no base (0) is nothing', { bps: 5_000 }, 0n, 0n],
    ] as const)('%s', (_name, reward, base, expected) => {
      expect(rewardAmount(reward, base)).toBe(expected);
    });

    it('floors like integer division for every bps on a range of bases (never rounds up)', () => {
      for (let base = 0n; base < 200n; base += 7n) {
        for (const bps of [0, 1, 33, 333, 3_333, 5_000, 9_999, 10_000]) {
          const share = shareOf(base, bps);
          expect(share * 10_000n).toBeLessThanOrEqual(base * BigInt(bps));
          expect((share + 1n) * 10_000n).toBeGreaterThan(base * BigInt(bps));
        }
      }
    });

    it('refuses a negative base rather than flooring toward zero', () => {
      expect(() => shareOf(-1n, 100)).toThrow(RangeError);
    });

    it.each([
      ['fixed', { fixed: '25' }, { fixed: 25n }],
      ['fixed 0', { fixed: '0' }, { fixed: 0n }],
      ['fixed of 2^256 − 1, the most a voucher pays', { fixed: (2n ** 256n - 1n).toString() }, { fixed: 2n ** 256n - 1n }],
      ['bps 0', { bps: 0 }, { bps: 0 }],
      ['bps 10,000', { bps: 10_000 }, { bps: 10_000 }],
    ])('accepts a %s reward', (_name, input, reward) => {
      expect(checkReward(input, 'affiliate')).toEqual({ reward, violations: [] });
    });

    it.each([
      ['neither field', {}, 'affiliate', 'exactly one of them'],
      ['both fields', { fixed: '1', bps: 1 }, 'affiliate', 'exactly one of them'],
      ['bps above 10,000', { bps: 10_001 }, 'affiliate.bps', 'from 0 to 10000'],
      ['negative bps', { bps: -1 }, 'affiliate.bps', 'from 0 to 10000'],
      ['fractional bps', { bps: 2.5 }, 'affiliate.bps', 'whole number'],
      ['a negative fixed amount', { fixed: '-5' }, 'affiliate.fixed', 'must not be negative'],
      ['a fixed amount with a fraction', { fixed: '1.5' }, 'affiliate.fixed', 'whole number'],
      ['a fixed amount in exponent notation', { fixed: '1e18' }, 'affiliate.fixed', 'whole number'],
      ['a fixed amount with a leading zero', { fixed: '01' }, 'affiliate.fixed', 'whole number'],
      ['a fixed amount of 79 digits', { fixed: '1'.repeat(79) }, 'affiliate.fixed', 'at most 78'],
    ])('refuses %s, naming the field', (_name, input, field, reason) => {
      const checked = checkReward(input, 'affiliate');
      expect(checked.reward).toBeUndefined();
      expect(checked.violations).toEqual([{ field, reason: expect.stringContaining(reason) }]);
    });

    it.each([
      ['2^256', (2n ** 256n).toString()],
      ['10^78 − 1, the most NUMERIC(78,0) holds', '9'.repeat(78)],
    ])('refuses a fixed amount of %s as past 2^256 − 1 (AMOUNT_RANGE), naming the field and the bound', (_name, fixed) => {
      const checked = checkReward({ fixed }, 'affiliate');
      expect(checked.reward).toBeUndefined();
      expect(checked.violations).toEqual([{ field: 'affiliate.fixed', reason: expect.stringContaining(`at most 2^256 − 1 = ${2n ** 256n - 1n}`) }]);
      expect(AMOUNT_RANGE.owns(checked.violations[0]!)).toBe(true);
    });
  });

  describe('a conversion', () => {
    it('pays nothing and says no_terms when no terms cover it, even when attributed', () => {
      expect(planPayouts({ user, rewardBase: 1_000n }, withMaster(500), null)).toEqual({
        status: 'no_terms',
        currencyId: null,
        movements: [],
        eligibility: null,
      });
    });

    it('pays the end user alone when nobody referred the user', () => {
      const plan = planPayouts({ user, rewardBase: 10_000n }, null, terms({ endUser: { bps: 100 }, affiliate: { fixed: 50n } }));
      expect(plan).toMatchObject({ status: 'processed', currencyId: CURRENCY });
      expect(amounts(plan)).toEqual([['end_user_payout', user.identifier, 100n]]);
    });

    it('pays the affiliate `affiliate` when it has no active tier', () => {
      const plan = planPayouts({ user, rewardBase: 10_000n }, attributed(), terms({ endUser: { fixed: 7n }, affiliate: { bps: 1_000 } }));
      expect(amounts(plan)).toEqual([
        ['end_user_payout', user.identifier, 7n],
        ['affiliate_payout', affiliateUser.identifier, 1_000n],
      ]);
    });

    it('pays the affiliate its active tier’s reward when the terms name that tier', () => {
      const tiered = terms({
        affiliate: { bps: 1_000 },
        tiers: [
          { audienceId: SILVER, affiliate: { bps: 1_500 }, upline: {} },
          { audienceId: GOLD, affiliate: { fixed: 2_222n }, upline: {} },
        ],
      });
      expect(amounts(planPayouts({ user, rewardBase: 10_000n }, attributed({ tierId: GOLD }), tiered))).toEqual([
        ['affiliate_payout', affiliateUser.identifier, 2_222n],
      ]);
      expect(amounts(planPayouts({ user, rewardBase: 10_000n }, attributed({ tierId: SILVER }), tiered))).toEqual([
        ['affiliate_payout', affiliateUser.identifier, 1_500n],
      ]);
    });

    it('pays the affiliate `affiliate` when its active tier is one the terms do not name', () => {
      const tiered = terms({ affiliate: { bps: 1_000 }, tiers: [{ audienceId: GOLD, affiliate: { bps: 5_000 }, upline: {} }] });
      expect(amounts(planPayouts({ user, rewardBase: 10_000n }, attributed({ tierId: randomUUID() }), tiered))).toEqual([
        ['affiliate_payout', affiliateUser.identifier, 1_000n],
      ]);
    });

    it('pays a tiered affiliate even when the terms have no `affiliate` reward, and an untiered one nothing', () => {
      const tiered = terms({ affiliate: null, tiers: [{ audienceId: GOLD, affiliate: { fixed: 300n }, upline: {} }] });
      expect(affiliateReward(tiered, GOLD)).toEqual({ fixed: 300n });
      expect(affiliateReward(tiered, null)).toBeNull();
      expect(amounts(planPayouts({ user, rewardBase: 1n }, attributed({ tierId: GOLD }), tiered))).toEqual([
        ['affiliate_payout', affiliateUser.identifier, 300n],
      ]);
      expect(amounts(planPayouts({ user, rewardBase: 1n }, attributed(), tiered))).toEqual([]);
    });

    it('pays the master floor(reward_base * spread_bps / 10,000) on top, as agency_payout', () => {
      const plan = planPayouts({ user, rewardBase: 9_999n }, withMaster(333), terms({ affiliate: { bps: 2_000 } }));
      expect(amounts(plan)).toEqual([
        ['affiliate_payout', affiliateUser.identifier, 1_999n],
        ['agency_payout', masterUser.identifier, 332n],
      ]);
    });

    it('pays the master its spread of reward_base whatever the affiliate earns (even nothing)', () => {
      const plan = planPayouts(
        { user, rewardBase: 1_000_000n },
        withMaster(250, GOLD),
        terms({ tiers: [{ audienceId: GOLD, affiliate: { fixed: 1n }, upline: {} }] }),
      );
      expect(amounts(plan)).toEqual([
        ['affiliate_payout', affiliateUser.identifier, 1n],
        ['agency_payout', masterUser.identifier, 25_000n],
      ]);
      expect(amounts(planPayouts({ user, rewardBase: 1_000_000n }, withMaster(250), terms()))).toEqual([
        ['agency_payout', masterUser.identifier, 25_000n],
      ]);
    });

    it('writes no movement of 0: a spread or share that floors to nothing, a fixed 0, no reward_base', () => {
      expect(amounts(planPayouts({ user, rewardBase: 39n }, withMaster(250), terms({ endUser: { fixed: 0n }, affiliate: { bps: 100 } })))).toEqual(
        [],
      );
      const plan = planPayouts({ user, rewardBase: 0n }, withMaster(10_000), terms({ endUser: { bps: 10_000 }, affiliate: { fixed: 5n } }));
      expect(plan.status).toBe('processed');
      expect(amounts(plan)).toEqual([['affiliate_payout', affiliateUser.identifier, 5n]]);
    });

    it('still says processed (in the terms’ currency) when the terms pay nothing for this conversion', () => {
      expect(planPayouts({ user, rewardBase: 100n }, null, terms())).toEqual({
        status: 'processed',
        currencyId: CURRENCY,
        movements: [],
        eligibility: { endUser: null, affiliate: null },
      });
    });

    it('never pays more than the stated shares: the parts of a bps conversion sum to at most their rates of the base', () => {
      for (const base of [0n, 1n, 99n, 10_001n, 123_456_789_012_345_678_901n]) {
        const plan = planPayouts({ user, rewardBase: base }, withMaster(1_234), terms({ endUser: { bps: 4_321 }, affiliate: { bps: 3_000 } }));
        const total = plan.movements.reduce((sum, movement) => sum + movement.amount, 0n);
        expect(total * 10_000n).toBeLessThanOrEqual(base * BigInt(4_321 + 3_000 + 1_234));
      }
    });
  });

  describe('allowlists', () => {
    const USERS_LIST = randomUUID();
    const AFFILIATES_LIST = randomUUID();
    /** Members by audience: what the audience service answered for the batch. */
    const membersOf = (lists: Record<string, UserIdentifier[]>): IsMember & { asked: Array<[string, string]> } => {
      const asked: Array<[string, string]> = [];
      const isMember = (audienceId: string, who: UserIdentifier) => {
        asked.push([audienceId, who.identifier]);
        return (lists[audienceId] ?? []).some((member) => member.identifier === who.identifier && member.identifierType === who.identifierType);
      };
      return Object.assign(isMember, { asked });
    };
    const paying = (fields: Partial<PayoutTermsView> = {}) => terms({ endUser: { fixed: 7n }, affiliate: { fixed: 11n }, ...fields });

    it('pays a converting user on the end-user allowlist, and says so', () => {
      const plan = planPayouts(
        { user, rewardBase: 1n },
        null,
        paying({ endUserAllowlistAudienceId: USERS_LIST }),
        membersOf({ [USERS_LIST]: [user] }),
      );
      expect(amounts(plan)).toEqual([['end_user_payout', user.identifier, 7n]]);
      expect(plan.eligibility).toEqual({ endUser: { allowlistAudienceId: USERS_LIST, eligible: true }, affiliate: null });
    });

    it('pays a converting user off the end-user allowlist nothing, and still pays its affiliate and master', () => {
      const plan = planPayouts({ user, rewardBase: 10_000n }, withMaster(100), paying({ endUserAllowlistAudienceId: USERS_LIST }), membersOf({}));
      expect(amounts(plan)).toEqual([
        ['affiliate_payout', affiliateUser.identifier, 11n],
        ['agency_payout', masterUser.identifier, 100n],
      ]);
      expect(plan.eligibility).toEqual({ endUser: { allowlistAudienceId: USERS_LIST, eligible: false }, affiliate: null });
    });

    it('pays an affiliate off the affiliate allowlist nothing, nor its master the spread, and still pays the end user', () => {
      const plan = planPayouts(
        { user, rewardBase: 10_000n },
        withMaster(100),
        paying({ affiliateAllowlistAudienceId: AFFILIATES_LIST }),
        membersOf({ [AFFILIATES_LIST]: [masterUser] }),
      );
      expect(amounts(plan)).toEqual([['end_user_payout', user.identifier, 7n]]);
      expect(plan.eligibility).toEqual({ endUser: null, affiliate: { allowlistAudienceId: AFFILIATES_LIST, eligible: false } });
    });

    it('pays an affiliate on the affiliate allowlist its tier’s reward, and its master the spread (the master need not be listed)', () => {
      const tiered = paying({ affiliateAllowlistAudienceId: AFFILIATES_LIST, tiers: [{ audienceId: GOLD, affiliate: { fixed: 300n }, upline: {} }] });
      const plan = planPayouts({ user, rewardBase: 10_000n }, withMaster(100, GOLD), tiered, membersOf({ [AFFILIATES_LIST]: [affiliateUser] }));
      expect(amounts(plan)).toEqual([
        ['end_user_payout', user.identifier, 7n],
        ['affiliate_payout', affiliateUser.identifier, 300n],
        ['agency_payout', masterUser.identifier, 100n],
      ]);
      expect(plan.eligibility).toEqual({ endUser: null, affiliate: { allowlistAudienceId: AFFILIATES_LIST, eligible: true } });
    });

    it('checks each side against its own list: a user on the affiliates’ list only is no end user of the users’ list', () => {
      const both = paying({ endUserAllowlistAudienceId: USERS_LIST, affiliateAllowlistAudienceId: AFFILIATES_LIST });
      const isMember = membersOf({ [AFFILIATES_LIST]: [user, affiliateUser], [USERS_LIST]: [affiliateUser] });
      const plan = planPayouts({ user, rewardBase: 1n }, attributed(), both, isMember);
      expect(amounts(plan)).toEqual([['affiliate_payout', affiliateUser.identifier, 11n]]);
      expect(plan.eligibility).toEqual({
        endUser: { allowlistAudienceId: USERS_LIST, eligible: false },
        affiliate: { allowlistAudienceId: AFFILIATES_LIST, eligible: true },
      });
      expect(isMember.asked).toEqual([
        [USERS_LIST, user.identifier],
        [AFFILIATES_LIST, affiliateUser.identifier],
      ]);
    });

    it('asks nobody when the terms name no allowlist (null lists), and freezes no check', () => {
      const isMember = membersOf({});
      const plan = planPayouts({ user, rewardBase: 10_000n }, withMaster(100), paying(), isMember);
      expect(amounts(plan)).toHaveLength(3);
      expect(plan.eligibility).toEqual({ endUser: null, affiliate: null });
      expect(isMember.asked).toEqual([]);
      // The default (no answers at all) is never consulted for such terms either.
      expect(amounts(planPayouts({ user, rewardBase: 10_000n }, withMaster(100), paying()))).toHaveLength(3);
    });

    it('checks no affiliate when nobody referred the user, whatever the affiliate allowlist', () => {
      const isMember = membersOf({});
      const plan = planPayouts({ user, rewardBase: 1n }, null, paying({ affiliateAllowlistAudienceId: AFFILIATES_LIST }), isMember);
      expect(amounts(plan)).toEqual([['end_user_payout', user.identifier, 7n]]);
      expect(plan.eligibility).toEqual({ endUser: null, affiliate: null });
      expect(isMember.asked).toEqual([]);
    });

    it('asks, per conversion, exactly the questions its plan asks: none without terms or lists', () => {
      const both = paying({ endUserAllowlistAudienceId: USERS_LIST, affiliateAllowlistAudienceId: AFFILIATES_LIST });
      expect(allowlistQuestions({ user }, attributed(), both)).toEqual([
        { audienceId: USERS_LIST, user },
        { audienceId: AFFILIATES_LIST, user: affiliateUser },
      ]);
      expect(allowlistQuestions({ user }, null, both)).toEqual([{ audienceId: USERS_LIST, user }]);
      expect(allowlistQuestions({ user }, attributed(), paying())).toEqual([]);
      expect(allowlistQuestions({ user }, attributed(), null)).toEqual([]);
    });
  });

  describe('rebates', () => {
    it('splits every reward exactly: the rebate floors, the affiliate keeps the rest, the two add up to the reward', () => {
      for (const reward of [0n, 1n, 4n, 5n, 999n, 10_001n, 123_456_789n, 2n ** 256n - 1n]) {
        for (const bps of [0, 1, 1_234, 1_999, 2_000]) {
          const { affiliate, rebate } = splitRebate(reward, bps);
          expect(rebate).toBe((reward * BigInt(bps)) / 10_000n);
          expect(affiliate + rebate).toBe(reward);
          expect(affiliate).toBeGreaterThanOrEqual(rebate * 4n);
        }
      }
    });

    it('pays the user its rebate as an end_user_payout marked rebate, beside its own reward, and the affiliate what is left', () => {
      const plan = planPayouts(
        { user, rewardBase: 10_000n },
        attributed({ rebateBps: 1_500 }),
        terms({ endUser: { fixed: 7n }, affiliate: { bps: 1_001 } }),
      );
      // The affiliate's reward: 1,001 bps of 10,000 = 1,001; 15% of it floored = 150.
      expect(plan.movements).toEqual([
        { kind: 'end_user_payout', beneficiary: user, amount: 7n },
        { kind: 'affiliate_payout', beneficiary: affiliateUser, amount: 851n },
        { kind: 'end_user_payout', beneficiary: user, amount: 150n, rebate: true },
      ]);
    });

    it('takes the rebate from the affiliate’s tier reward, never from the master’s spread', () => {
      const plan = planPayouts(
        { user, rewardBase: 10_000n },
        { ...withMaster(500, GOLD), rebateBps: 2_000 },
        terms({ affiliate: { bps: 100 }, tiers: [{ audienceId: GOLD, affiliate: { fixed: 1_000n }, upline: {} }] }),
      );
      expect(amounts(plan)).toEqual([
        ['affiliate_payout', affiliateUser.identifier, 800n],
        ['end_user_payout', user.identifier, 200n],
        ['agency_payout', masterUser.identifier, 500n],
      ]);
    });

    it('writes no rebate of 0: a rate of 0, or one that floors to nothing', () => {
      expect(amounts(planPayouts({ user, rewardBase: 1n }, attributed({ rebateBps: 0 }), terms({ affiliate: { fixed: 1_000n } })))).toEqual([
        ['affiliate_payout', affiliateUser.identifier, 1_000n],
      ]);
      expect(amounts(planPayouts({ user, rewardBase: 1n }, attributed({ rebateBps: 2_000 }), terms({ affiliate: { fixed: 4n } })))).toEqual([
        ['affiliate_payout', affiliateUser.identifier, 4n],
      ]);
    });

    it('follows the affiliate’s allowlist, not the end user’s: it is the affiliate’s money', () => {
      const LIST = randomUUID();
      const nobody: IsMember = () => false;
      const offUsers = planPayouts(
        { user, rewardBase: 1n },
        attributed({ rebateBps: 1_000 }),
        terms({ endUser: { fixed: 7n }, affiliate: { fixed: 100n }, endUserAllowlistAudienceId: LIST }),
        nobody,
      );
      expect(offUsers.movements).toEqual([
        { kind: 'affiliate_payout', beneficiary: affiliateUser, amount: 90n },
        { kind: 'end_user_payout', beneficiary: user, amount: 10n, rebate: true },
      ]);
      const offAffiliates = planPayouts(
        { user, rewardBase: 1n },
        attributed({ rebateBps: 1_000 }),
        terms({ endUser: { fixed: 7n }, affiliate: { fixed: 100n }, affiliateAllowlistAudienceId: LIST }),
        nobody,
      );
      expect(offAffiliates.movements).toEqual([{ kind: 'end_user_payout', beneficiary: user, amount: 7n }]);
    });
  });
});
