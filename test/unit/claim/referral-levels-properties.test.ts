import fc from 'fast-check';
import {
  type AffiliateRef,
  type Attribution,
  type PayoutTermsView,
  planPayouts,
  type PlannedMovement,
  UPLINE_LEVELS,
  type UplineAffiliate,
  type UplineLevel,
  type UplineRewards,
} from '../../../services/claim/domain/payouts';
import { type Reward, rewardAmount } from '../../../services/claim/domain/reward';
import { evmAddress } from '../../helpers/evm-addresses';

/**
 * Referral levels (docs/claims.md#referral-levels) over random referral forests: random affiliates, each referred
 * by an earlier one or by nobody (a forest: the agency refuses a referral that would close a cycle, so every
 * chain the claim service is answered is a path of one), some suspended, random terms per level (fixed and bps,
 * on the terms and on a tier), random reward bases, random rebate rates. The chain the agency answers is built
 * here as it builds `ancestors`: up to 4 levels, a suspended level left out.
 */

interface Forest {
  /** parents[i]: the affiliate that referred affiliate i's user (an index below i), or null. */
  parents: Array<number | null>;
  suspended: boolean[];
}

const forest: fc.Arbitrary<Forest> = fc.integer({ min: 1, max: 14 }).chain((size) =>
  fc.record({
    parents: fc.tuple<Array<number | null>>(
      ...Array.from({ length: size }, (_, index): fc.Arbitrary<number | null> =>
        index === 0 ? fc.constant(null) : fc.option(fc.integer({ min: 0, max: index - 1 }), { freq: 4 }),
      ),
    ),
    suspended: fc.array(
      fc.integer({ min: 0, max: 5 }).map((roll) => roll === 0),
      { minLength: size, maxLength: size },
    ),
  }),
);

const reward: fc.Arbitrary<Reward | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.bigInt({ min: 0n, max: 10n ** 24n }).map((fixed): Reward => ({ fixed })),
  fc.integer({ min: 0, max: 10_000 }).map((bps): Reward => ({ bps })),
);
const uplineRewards: fc.Arbitrary<UplineRewards> = fc.tuple(reward, reward, reward).map(([two, three, four]) => {
  const rewards: UplineRewards = {};
  if (two) rewards[2] = two;
  if (three) rewards[3] = three;
  if (four) rewards[4] = four;
  return rewards;
});
const TIER = '00000000-0000-4000-8000-0000000000aa';

const terms: fc.Arbitrary<PayoutTermsView> = fc
  .record({
    endUser: reward,
    affiliate: reward,
    upline: uplineRewards,
    tier: fc.option(fc.record({ affiliate: reward.filter((value): value is Reward => value !== undefined), upline: uplineRewards })),
  })
  .map(({ endUser, affiliate, upline, tier }) => ({
    currencyId: '00000000-0000-4000-8000-000000000001',
    endUser: endUser ?? null,
    affiliate: affiliate ?? null,
    upline,
    tiers: tier ? [{ audienceId: TIER, ...tier }] : [],
    endUserAllowlistAudienceId: null,
    affiliateAllowlistAudienceId: null,
  }));

const refOf = (index: number): AffiliateRef => ({
  id: `aff-${index}`,
  user: { identifier: evmAddress(1_000 + index), identifierType: 'evm_address' },
});
const converting = { identifier: evmAddress(1), identifierType: 'evm_address' as const };

/** The ancestors of `index` as the agency answers them: level 2 its referrer, up to 4, a suspended level left out. */
function upline(shape: Forest, index: number): UplineAffiliate[] {
  const chain: UplineAffiliate[] = [];
  let below = index;
  for (const level of UPLINE_LEVELS) {
    const parent = shape.parents[below];
    if (parent === null || parent === undefined) break;
    below = parent;
    if (!shape.suspended[parent]) chain.push({ level, affiliate: refOf(parent) });
  }
  return chain;
}

/** The affiliate's depth in its tree: how many referrals separate it from its root. */
function depth(shape: Forest, index: number): number {
  let levels = 0;
  for (let at = shape.parents[index]; at !== null && at !== undefined; at = shape.parents[at]) levels += 1;
  return levels;
}

const levelOf = (movement: PlannedMovement) => movement.level ?? 1;
const affiliatePayouts = (movements: PlannedMovement[]) => movements.filter((movement) => movement.kind === 'affiliate_payout');

describe('referral levels over random referral forests (planPayouts)', () => {
  it('pays each level of the chain its reward exactly, to the ancestor at that level, each beneficiary once, never past level 4', () => {
    fc.assert(
      fc.property(
        forest,
        fc.nat(),
        terms,
        fc.bigInt({ min: 0n, max: 10n ** 30n }),
        fc.integer({ min: 0, max: 2_000 }),
        fc.boolean(),
        (shape, pick, view, rewardBase, rebateBps, tiered) => {
          const referrer = pick % shape.parents.length;
          const attribution: Attribution = {
            affiliate: refOf(referrer),
            master: null,
            upline: upline(shape, referrer),
            tierId: tiered ? TIER : null,
            rebateBps,
          };
          const plan = planPayouts({ user: converting, rewardBase }, attribution, view);
          const tier = tiered ? view.tiers[0] : undefined;
          const rewards: Partial<Record<1 | UplineLevel, Reward>> = { ...(tier?.upline ?? view.upline) };
          const levelOne = tier?.affiliate ?? view.affiliate;
          if (levelOne) rewards[1] = levelOne;
          const ancestors = new Map<number, AffiliateRef>([
            [1, attribution.affiliate],
            ...attribution.upline.map((a) => [a.level, a.affiliate] as const),
          ]);

          // Per level: what it was paid (the level-1 rebate is part of level 1's reward) is its rewardAmount exactly.
          const paid = affiliatePayouts(plan.movements);
          const rebate = plan.movements.filter((movement) => movement.rebate).reduce((sum, movement) => sum + movement.amount, 0n);
          let expectedTotal = 0n;
          for (const level of [1, 2, 3, 4] as const) {
            const atLevel = paid.filter((movement) => levelOf(movement) === level);
            const owed = ancestors.has(level) && rewards[level] ? rewardAmount(rewards[level], rewardBase) : 0n;
            expectedTotal += owed;
            const got = atLevel.reduce((sum, movement) => sum + movement.amount, 0n) + (level === 1 ? rebate : 0n);
            expect(got).toBe(owed);
            // The beneficiary is the ancestor at that level, and a level pays at most one movement.
            expect(atLevel.length).toBeLessThanOrEqual(1);
            for (const movement of atLevel) expect(movement.beneficiary).toEqual(ancestors.get(level)!.user);
          }
          expect(paid.reduce((sum, movement) => sum + movement.amount, 0n) + rebate).toBe(expectedTotal);

          // No affiliate is paid twice in one conversion: in a forest one affiliate is never at two levels.
          const beneficiaries = paid.map((movement) => movement.beneficiary.identifier);
          expect(new Set(beneficiaries).size).toBe(beneficiaries.length);
          expect(new Set([...ancestors.values()].map((ref) => ref.id)).size).toBe(ancestors.size);

          // A chain never has more than 4 levels, however deep the tree: levels 2..4, ascending, no deeper than the tree.
          const levels = attribution.upline.map((ancestor) => ancestor.level);
          expect(levels).toEqual([...levels].sort());
          expect(levels.every((level) => level >= 2 && level <= 4)).toBe(true);
          expect(Math.max(1, ...paid.map(levelOf))).toBeLessThanOrEqual(Math.min(4, depth(shape, referrer) + 1));
          // No spread and no rebate come from a level above 1.
          expect(plan.movements.filter((movement) => movement.kind !== 'affiliate_payout').every((movement) => movement.level === undefined)).toBe(
            true,
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('pays nobody above the affiliate when nobody referred it, and only what the terms name', () => {
    fc.assert(
      fc.property(terms, fc.bigInt({ min: 0n, max: 10n ** 30n }), (view, rewardBase) => {
        const plan = planPayouts(
          { user: converting, rewardBase },
          { affiliate: refOf(0), master: null, upline: [], tierId: null, rebateBps: 0 },
          view,
        );
        expect(affiliatePayouts(plan.movements).every((movement) => levelOf(movement) === 1)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
