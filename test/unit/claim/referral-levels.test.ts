import { randomUUID } from 'node:crypto';
import type { Attribution as AttributionMessage } from '../../../gen/referral/agency/v1/agency';
import { AffiliateStatus, AttributionOutcome } from '../../../gen/referral/agency/v1/enums';
import { AgencyAttributionSource } from '../../../services/claim/grpc/agency-attribution.client';
import {
  allowlistQuestions,
  type Attribution,
  type PayoutTermsView,
  planPayouts,
  type ResolvedAttribution,
  uplineRewards,
} from '../../../services/claim/domain/payouts';
import type { UserIdentifier } from '../../../services/rules/identifiers';
import { evmAddress } from '../../helpers/evm-addresses';

/**
 * Referral levels case by case (docs/claims.md#referral-levels): which rewards the upline is paid (the terms', or
 * the level-1 affiliate's tier's whole), the allowlist per beneficiary, nothing but level 1 gives a spread or a
 * rebate, and what the claim service accepts of the agency's `ancestors`. Random forests:
 * referral-levels-properties.test.ts.
 */
const wallet = (n: number): UserIdentifier => ({ identifier: evmAddress(n), identifierType: 'evm_address' });
const user = wallet(1);
const [l1, l2, l3, l4, master] = [wallet(11), wallet(12), wallet(13), wallet(14), wallet(20)];
const GOLD = randomUUID();
const LIST = randomUUID();

const terms = (fields: Partial<PayoutTermsView> = {}): PayoutTermsView => ({
  currencyId: randomUUID(),
  endUser: null,
  affiliate: { bps: 1_000 },
  upline: { 2: { bps: 500 }, 3: { fixed: 70n }, 4: { bps: 100 } },
  tiers: [],
  endUserAllowlistAudienceId: null,
  affiliateAllowlistAudienceId: null,
  ...fields,
});
const chain = (fields: Partial<Attribution> = {}): Attribution => ({
  affiliate: { id: 'a1', user: l1 },
  master: null,
  upline: [
    { level: 2, affiliate: { id: 'a2', user: l2 } },
    { level: 3, affiliate: { id: 'a3', user: l3 } },
    { level: 4, affiliate: { id: 'a4', user: l4 } },
  ],
  tierId: null,
  rebateBps: 0,
  ...fields,
});
const paid = (plan: ReturnType<typeof planPayouts>) =>
  plan.movements.map((m) => [m.kind, m.beneficiary.identifier, m.amount, m.level ?? 1, m.rebate ?? false] as const);

describe('referral levels (domain)', () => {
  it('pays each level of the upline its reward as an affiliate_payout with its level, fixed or bps of reward_base', () => {
    expect(paid(planPayouts({ user, rewardBase: 10_000n }, chain(), terms()))).toEqual([
      ['affiliate_payout', l1.identifier, 1_000n, 1, false],
      ['affiliate_payout', l2.identifier, 500n, 2, false],
      ['affiliate_payout', l3.identifier, 70n, 3, false],
      ['affiliate_payout', l4.identifier, 100n, 4, false],
    ]);
  });

  it('pays the levels the agency answered (a suspended level is left out) and only the levels the terms name', () => {
    const skipping = chain({ upline: [{ level: 3, affiliate: { id: 'a3', user: l3 } }] });
    expect(paid(planPayouts({ user, rewardBase: 10_000n }, skipping, terms()))).toEqual([
      ['affiliate_payout', l1.identifier, 1_000n, 1, false],
      ['affiliate_payout', l3.identifier, 70n, 3, false],
    ]);
    expect(paid(planPayouts({ user, rewardBase: 10_000n }, chain(), terms({ upline: { 4: { fixed: 9n } } })))).toEqual([
      ['affiliate_payout', l1.identifier, 1_000n, 1, false],
      ['affiliate_payout', l4.identifier, 9n, 4, false],
    ]);
  });

  it('takes every level’s reward from the level-1 affiliate’s tier when the terms name it: a level the tier leaves unset pays nothing', () => {
    const tiered = terms({ tiers: [{ audienceId: GOLD, affiliate: { bps: 2_000 }, upline: { 2: { bps: 1_000 } } }] });
    expect(uplineRewards(tiered, GOLD)).toEqual({ 2: { bps: 1_000 } });
    expect(uplineRewards(tiered, null)).toEqual(tiered.upline);
    expect(paid(planPayouts({ user, rewardBase: 10_000n }, chain({ tierId: GOLD }), tiered))).toEqual([
      ['affiliate_payout', l1.identifier, 2_000n, 1, false],
      ['affiliate_payout', l2.identifier, 1_000n, 2, false],
    ]);
    // Another tier (not named): the terms' own rewards, every level.
    expect(paid(planPayouts({ user, rewardBase: 10_000n }, chain({ tierId: randomUUID() }), tiered))).toHaveLength(4);
  });

  it('gives the spread and the rebate from level 1 only', () => {
    const withBoth = chain({ master: { affiliate: { id: 'm', user: master }, spreadBps: 300 }, rebateBps: 2_000 });
    expect(paid(planPayouts({ user, rewardBase: 10_000n }, withBoth, terms()))).toEqual([
      ['affiliate_payout', l1.identifier, 800n, 1, false],
      ['end_user_payout', user.identifier, 200n, 1, true],
      ['agency_payout', master.identifier, 300n, 1, false],
      ['affiliate_payout', l2.identifier, 500n, 2, false],
      ['affiliate_payout', l3.identifier, 70n, 3, false],
      ['affiliate_payout', l4.identifier, 100n, 4, false],
    ]);
  });

  it('holds each level’s beneficiary to the affiliate allowlist on its own', () => {
    const listed = terms({ affiliateAllowlistAudienceId: LIST });
    // Level 1 and level 3 are members; level 2 and level 4 are not.
    const members = new Set([l1.identifier, l3.identifier]);
    const plan = planPayouts({ user, rewardBase: 10_000n }, chain(), listed, (_, who) => members.has(who.identifier));
    expect(paid(plan)).toEqual([
      ['affiliate_payout', l1.identifier, 1_000n, 1, false],
      ['affiliate_payout', l3.identifier, 70n, 3, false],
    ]);
    // Level 1 not a member: its upline still earns (each beneficiary is checked, not the chain).
    const noLevelOne = planPayouts({ user, rewardBase: 10_000n }, chain(), listed, (_, who) => who.identifier !== l1.identifier);
    expect(paid(noLevelOne).map(([, , , level]) => level)).toEqual([2, 3, 4]);
    // The batch asks the audience service about each paid level's beneficiary (one question each).
    expect(allowlistQuestions({ user }, chain(), listed).map((question) => question.user.identifier)).toEqual([
      l1.identifier,
      l2.identifier,
      l3.identifier,
      l4.identifier,
    ]);
    expect(allowlistQuestions({ user }, chain(), terms({ affiliateAllowlistAudienceId: LIST, upline: {} }))).toHaveLength(1);
  });
});

describe('the agency’s ancestors as the claim service reads them (AgencyAttributionSource)', () => {
  const ref = (id: string, n: number) => ({ id, identifier: evmAddress(n), identifierType: 'evm_address' });
  const message = (ancestors: AttributionMessage['ancestors']): AttributionMessage => ({
    outcome: AttributionOutcome.ATTRIBUTED,
    affiliate: ref('a1', 11),
    affiliateStatus: AffiliateStatus.ACTIVE,
    spreadBps: 0,
    affiliateFlagged: false,
    userRebateRateBps: 0,
    ancestors,
  });
  const resolveOne = async (answer: AttributionMessage): Promise<ResolvedAttribution | null | Error> => {
    const calls = { batchResolveAttribution: async () => ({ results: [answer] }) };
    const source = new AgencyAttributionSource(calls as unknown as ConstructorParameters<typeof AgencyAttributionSource>[0]);
    const [result] = await source.resolve('p', [{ user, at: new Date() }]);
    return result!;
  };

  it('freezes the upline the agency answered, ascending, levels that skip included', async () => {
    const result = await resolveOne(
      message([
        { level: 2, affiliate: ref('a2', 12) },
        { level: 4, affiliate: ref('a4', 14) },
      ]),
    );
    expect(result).not.toBeInstanceOf(Error);
    expect((result as ResolvedAttribution).upline).toEqual([
      { level: 2, affiliate: { id: 'a2', user: l2 } },
      { level: 4, affiliate: { id: 'a4', user: l4 } },
    ]);
    expect(((await resolveOne(message([]))) as ResolvedAttribution).upline).toEqual([]);
  });

  it.each([
    [
      'an affiliate twice (a cycle)',
      [
        { level: 2, affiliate: ref('a2', 12) },
        { level: 3, affiliate: ref('a2', 12) },
      ],
    ],
    ['the referring affiliate in its own upline (a cycle)', [{ level: 2, affiliate: ref('a1', 11) }]],
    ['a level past 4', [{ level: 5, affiliate: ref('a5', 15) }]],
    ['level 1', [{ level: 1, affiliate: ref('a5', 15) }]],
    [
      'levels out of order',
      [
        { level: 3, affiliate: ref('a3', 13) },
        { level: 2, affiliate: ref('a2', 12) },
      ],
    ],
    ['an ancestor without an affiliate', [{ level: 2, affiliate: undefined }]],
  ])('refuses, for that conversion alone, an upline naming %s', async (_, ancestors) => {
    expect(await resolveOne(message(ancestors))).toBeInstanceOf(Error);
  });
});
