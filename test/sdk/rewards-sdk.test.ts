import { Fuul, UserIdentifierType } from '@fuul/sdk';
import { conversionBody, createCurrency, evmUser, putTerms, settled } from '../claim/claim-fixtures';
import { createProject, randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { creationMessage, refusal } from '../helpers/fuul-sdk';
import { pollUntil } from '../helpers/poll';
import { serviceClients, type ServiceClients } from '../helpers/rpc';
import type { TestStack } from '../helpers/stack';
import { newWallet, type TestWallet } from '../helpers/wallet';

const EVM = UserIdentifierType.EvmAddress;
/** Ours beside the SDK's fields: each whole-unit amount's exact base units. */
type WithBaseUnits<T, K extends string> = T & Record<K, string>;

/**
 * Issue 25's "done when", the exact figures: one project's rewards read through the published
 * @fuul/sdk itself against the running stack, every figure to the unit, ranges by the stack's clock.
 *
 * `trade` pays the end user 1% and its affiliate 10% of reward_base, in a 6-decimal currency. F1
 * referred u1 and u2, F2 referred u3; u4 came by itself.
 *   2026-11-21 (its last millisecond):  u1 reward_base 1,000,000  $100.50 volume  $1.25 revenue
 *                                       u4             3,000,000  $10            $0.50
 *   2026-11-22 (its first millisecond): u2             2,000,000  $50            $5.25
 *                                       u3               500,000  $200           $2
 *   2026-11-23 (noon):                  u1               250,000  $7.25          $0.25
 * so the users earn u4 30,000, u2 20,000, u1 10,000 + 2,500, u3 5,000 base units; F1 earns
 * 100,000 + 200,000 + 25,000 and F2 50,000.
 *
 * The four referral levels have their own project below; the points section is where its scenario goes.
 */
describe('a project’s rewards through the @fuul/sdk, to the unit', () => {
  let stack: TestStack;
  let project: TestProject;
  let clients: ServiceClients;
  let currency: { id: string; address: string };
  const F1 = { identifier: randomEvmAddress(), code: `f1${Date.now().toString(36)}` };
  const F2 = { identifier: randomEvmAddress(), code: `f2${Date.now().toString(36)}` };
  const [u1, u2, u3, u4] = [evmUser(), evmUser(), evmUser(), evmUser()];

  async function pay(at: string, conversions: Array<[{ identifier: string }, string, string, string]>) {
    stack.clock.set(at);
    const bodies = conversions.map(([user, rewardBase, volume, revenue]) =>
      conversionBody({ user: evmUser(user.identifier), reward_base: rewardBase, volume_usd: volume, revenue_usd: revenue }),
    );
    const response = await stack.api.post('/api/v1/conversions/batch', { key: project.keys.service, body: { conversions: bodies } });
    expect([200, 202]).toContain(response.status);
    for (const body of bodies) await settled(stack, project, body.id);
  }

  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    clients = serviceClients(stack);
    currency = await createCurrency(stack, project, { name: 'USDC', decimals: 6 });
    await putTerms(stack, project, 'trade', { currency_id: currency.id, end_user: { bps: 100 }, affiliate: { bps: 1_000 } });
    for (const [affiliate, name, referred] of [
      [F1, 'F1', [u1, u2]],
      [F2, 'F2', [u3]],
    ] as const) {
      await clients.agency.createAffiliate({
        projectId: project.id,
        user: { identifier: affiliate.identifier, identifierType: 'evm_address' },
        name,
        code: affiliate.code,
      });
      for (const user of referred) {
        await clients.agency.createReferral({
          projectId: project.id,
          user: { identifier: user.identifier, identifierType: 'evm_address' },
          code: affiliate.code,
        });
      }
    }
    await pay('2026-11-21T23:59:59.999Z', [
      [u1, '1000000', '100.5', '1.25'],
      [u4, '3000000', '10', '0.5'],
    ]);
    await pay('2026-11-22T00:00:00.000Z', [
      [u2, '2000000', '50', '5.25'],
      [u3, '500000', '200', '2'],
    ]);
    await pay('2026-11-23T12:00:00.000Z', [[u1, '250000', '7.25', '0.25']]);
    stack.clock.set('2026-11-24T09:00:00.000Z');
    // The agency's projection (the volume boards and the stats read it) has counted the four referred conversions.
    await pollUntil(
      async () => {
        const list = await stack.api.get(`/api/v1/projects/${project.id}/affiliates?page_size=10`, { key: project.keys.admin });
        return list.body.results?.reduce((sum: number, row: { conversions: number }) => sum + row.conversions, 0) === 4;
      },
      { timeoutMs: 15_000, what: 'the agency’s projection to count the four referred conversions' },
    );
    Fuul.init({ apiKey: project.keys.service, baseApiUrl: `${stack.baseUrl}/api/v1/` });
  });
  afterAll(async () => {
    clients?.close();
    await stack?.stop();
  });

  describe('leaderboards', () => {
    const payouts = async (params: Parameters<typeof Fuul.getPayoutsLeaderboard>[0]) =>
      (await Fuul.getPayoutsLeaderboard({ currency_address: currency.address, ...params })).results.map((row) => [
        row.rank,
        row.user_identifier,
        (row as WithBaseUnits<typeof row, 'total_amount_base_units'>).total_amount_base_units,
        row.total_attributions,
      ]);

    it('getPayoutsLeaderboard orders what each earned within from..to (UTC days, both whole), end users and affiliates', async () => {
      expect(await payouts({ user_type: 'end_user', from: '2026-11-21', to: '2026-11-22' })).toEqual([
        [1, u4.identifier, '30000', 1],
        [2, u2.identifier, '20000', 1],
        [3, u1.identifier, '10000', 1],
        [4, u3.identifier, '5000', 1],
      ]);
      expect(await payouts({ user_type: 'end_user', from: '2026-11-22', to: '2026-11-23' })).toEqual([
        [1, u2.identifier, '20000', 1],
        [2, u3.identifier, '5000', 1],
        [3, u1.identifier, '2500', 1],
      ]);
      expect(await payouts({ user_type: 'end_user' })).toEqual([
        [1, u4.identifier, '30000', 1],
        [2, u2.identifier, '20000', 1],
        [3, u1.identifier, '12500', 2],
        [4, u3.identifier, '5000', 1],
      ]);
      expect(await payouts({ user_type: 'affiliate', from: '2026-11-21', to: '2026-11-22' })).toEqual([
        [1, F1.identifier, '300000', 2],
        [2, F2.identifier, '50000', 1],
      ]);
      expect(await payouts({ user_type: 'affiliate', from: '2026-11-23' })).toEqual([[1, F1.identifier, '25000', 1]]);
      // total_amount in whole units, as the SDK types it; the user's own row with its rank in the range.
      const own = await Fuul.getPayoutsLeaderboard({
        user_type: 'end_user',
        from: '2026-11-21',
        to: '2026-11-22',
        user_identifier: u1.identifier,
        identifier_type: EVM,
      });
      expect(own.results).toEqual([expect.objectContaining({ rank: 3, total_amount: 0.01, total_amount_base_units: '10000' })]);
      expect(own.calculated_at).toBe('2026-11-24T09:00:00.000Z');
    });

    it('getVolumeLeaderboard, getRevenueLeaderboard, getReferredVolume and getReferredUsersLeaderboard rank the referred users’ figures', async () => {
      const volume = await Fuul.getVolumeLeaderboard({ user_type: 'affiliate' });
      expect(volume.results.map((row) => [row.rank, row.user_identifier, row.total_amount, row.affiliate_code])).toEqual([
        [1, F2.identifier, '200', F2.code],
        [2, F1.identifier, '157.75', F1.code],
      ]);
      const revenue = await Fuul.getRevenueLeaderboard({ user_type: 'affiliate' });
      expect(revenue.results.map((row) => [row.rank, row.address, row.total_amount, row.attributions])).toEqual([
        [1, F1.identifier, '6.75', 3],
        [2, F2.identifier, '2', 1],
      ]);
      expect(await Fuul.getReferredVolume({ user_identifiers: [F1.identifier, F2.identifier], identifier_type: EVM })).toEqual({
        project_id: project.id,
        referred_volumes: [
          { user_identifier: F1.identifier, referred_volume: 157.75 },
          { user_identifier: F2.identifier, referred_volume: 200 },
        ],
        total_count: 2,
      });
      const referred = await Fuul.getReferredUsersLeaderboard({ page: 1, page_size: 10 });
      expect(referred.results.map((row) => [row.rank, row.address, row.total_referred_users])).toEqual([
        [1, F1.identifier, 2],
        [2, F2.identifier, 1],
      ]);
    });
  });

  describe('payouts queries', () => {
    it('getUserPayoutMovements answers the movements written within from_date..to_date', async () => {
      const movements = async (params: { from_date?: string; to_date?: string }) =>
        (await Fuul.getUserPayoutMovements({ user_identifier: u1.identifier, identifier_type: EVM, ...params })).results.map((row) => [
          row.date,
          row.is_referrer,
          row.total_amount,
        ]);
      expect(await movements({})).toEqual([
        ['2026-11-23T12:00:00.000Z', false, '2500'],
        ['2026-11-21T23:59:59.999Z', false, '10000'],
      ]);
      expect(await movements({ from_date: '2026-11-22' })).toEqual([['2026-11-23T12:00:00.000Z', false, '2500']]);
      expect(await movements({ to_date: '2026-11-22' })).toEqual([['2026-11-21T23:59:59.999Z', false, '10000']]);
      expect(await movements({ from_date: '2026-11-22', to_date: '2026-11-22' })).toEqual([]);
    });

    it('getUserPayoutsByConversion sums each side’s payouts per conversion name within from..to', async () => {
      const sums = async (user: string, from: string, to: string) =>
        (await Fuul.getUserPayoutsByConversion({ user_identifier: user, identifier_type: EVM, from, to })).results.map((row) => [
          row.conversion_name,
          row.is_referrer,
          row.total_amount,
          row.currency_address,
        ]);
      expect(await sums(u1.identifier, '2026-11-21', '2026-11-23')).toEqual([['trade', false, '12500', currency.address]]);
      expect(await sums(F1.identifier, '2026-11-22', '2026-11-23')).toEqual([['trade', true, '225000', currency.address]]);
      expect(await sums(F2.identifier, '2026-11-23', '2026-11-23')).toEqual([]);
    });

    it('getPayoutsByReferrer answers per referred user its volume and what the affiliate earned from it', async () => {
      const byUser = async (params: { from_date?: string; to_date?: string }) =>
        Object.assign(
          {},
          ...(await Fuul.getPayoutsByReferrer({ user_identifier: F1.identifier, user_identifier_type: EVM, ...params })).map((entry) =>
            Object.fromEntries(
              Object.entries(entry).map(([user, data]) => [
                user,
                [data.volume, data.earnings.map((earning) => (earning as WithBaseUnits<typeof earning, 'amount_base_units'>).amount_base_units)],
              ]),
            ),
          ),
        );
      expect(await byUser({})).toEqual({ [u1.identifier]: [107.75, ['125000']], [u2.identifier]: [50, ['200000']] });
      expect(await byUser({ from_date: '2026-11-21', to_date: '2026-11-21' })).toEqual({ [u1.identifier]: [100.5, ['100000']] });
    });
  });

  describe('incentives', () => {
    it('getIncentives and getConversions list the conversion names with their terms; getIncentivesByTier the rates per tier', async () => {
      const incentives = await Fuul.getIncentives();
      expect(incentives.map((conversion) => [conversion.name, conversion.payout_terms?.map((term) => term.payee_type)])).toEqual([
        ['trade', ['both']],
      ]);
      expect(incentives[0]!.payout_terms?.[0]?.payout_groups).toEqual([
        expect.objectContaining({ id: 'default', affiliate_amount_percentage: 10, end_user_amount_percentage: 1 }),
      ]);
      expect(await Fuul.getConversions({ user_identifier: u1.identifier, identifier_type: EVM })).toEqual(incentives);
      const byTier = await Fuul.getIncentivesByTier();
      expect(byTier.tiers).toEqual([
        expect.objectContaining({
          tier_id: null,
          payout_terms: [
            expect.objectContaining({
              conversion_name: 'trade',
              affiliate_rate: { amount: '1000', currency: null, unit: 'bps' },
              end_user_rate: { amount: '100', currency: null, unit: 'bps' },
            }),
          ],
        }),
      ]);
    });
  });

  describe('the affiliate stats API', () => {
    it('getAffiliateStats and getAffiliateTotalStats: all time and within a range', async () => {
      expect(await Fuul.getAffiliateStats({ user_identifier: F1.identifier })).toMatchObject({
        referred_volume: 157.75,
        referred_revenue: 6.75,
        referred_attributions: 3,
        referred_users: 2,
        total_earnings: [{ amount: 0.325, currency: 'USDC' }],
        r1_earnings: [{ amount: 0.325, currency: 'USDC' }],
      });
      expect(await Fuul.getAffiliateStats({ user_identifier: F1.identifier, from: '2026-11-22', to: '2026-11-22' })).toMatchObject({
        referred_volume: 50,
        referred_revenue: 5.25,
        referred_attributions: 1,
        referred_users: 1,
        r1_earnings: [{ amount: 0.2, currency: 'USDC' }],
      });
      expect(await Fuul.getAffiliateTotalStats({})).toMatchObject({
        total_affiliates: 2,
        total_volume: 357.75,
        total_revenue: 8.75,
        total_attributions: 4,
        total_referred_users: 3,
        total_earnings: [{ amount: 0.375, currency: 'USDC' }],
      });
    });

    it('getStatsBreakdown by day, getAffiliateNewTraders, getReferralTree and getAffiliatePaidVolumesByLevel', async () => {
      const days = await Fuul.getStatsBreakdown({
        user_identifier: F1.identifier,
        group_by: 'day',
        from: '2026-11-21',
        to: '2026-11-23',
        currency_id: currency.id,
      });
      expect(days.results.map((day) => [day.date, day.r1_volume, day.revenue, day.attributions, day.earnings])).toEqual([
        ['2026-11-21', 100.5, 1.25, 1, 0.1],
        ['2026-11-22', 50, 5.25, 1, 0.2],
        ['2026-11-23', 7.25, 0.25, 1, 0.025],
      ]);
      const newTraders = async (from?: string) => (await Fuul.getAffiliateNewTraders({ user_identifier: F1.identifier, from }))[0]!.total_new_traders;
      expect(await newTraders()).toBe('2');
      // u1 first traded on the 21st: from the 22nd only u2 is new.
      expect(await newTraders('2026-11-22')).toBe('1');
      const tree = await Fuul.getReferralTree({ user_identifier: F1.identifier });
      expect([tree.total_volume, tree.children.map((child) => [child.user_identifier, child.total_volume, child.total_revenue])]).toEqual([
        157.75,
        [
          [u1.identifier, 107.75, 1.5],
          [u2.identifier, 50, 5.25],
        ],
      ]);
      expect(await Fuul.getAffiliatePaidVolumesByLevel({ user_identifier: F1.identifier })).toMatchObject({
        payout_eligible_l1_volume: 157.75,
        payout_eligible_l1_revenue: 6.75,
        payout_eligible_l1_attributions: 3,
        payout_eligible_total_volume: 157.75,
      });
    });
  });

  // Issue 25 §1: points paid by terms, their movements, balances and board (getUserPointsMovements,
  // getUserPointsByConversion, getPointsLeaderboard) — the lead adds this scenario when points land.
  describe('points', () => {});

  /**
   * Issue 25 §2, both halves for real: affiliates A1..A5 made through the SDK, each A(k+1) referred A(k)'s
   * wallet with the SDK's useReferralCode, a user referred by A1, and `swap` paying the user 1% and levels 1..4
   * fixed 40,000, 5%, fixed 7,000 and 1.25% of reward_base. The user's two swaps (1,000,000 on the 10th, 333,333
   * on the 12th) pay level 1 (A1) 40,000 + 40,000, level 2 (A2) 50,000 + 16,666, level 3 (A3) 7,000 + 7,000 and
   * level 4 (A4) 12,500 + 4,166 (bps floored), and A5, a fifth level, nothing. In a project of its own on the
   * same stack, so the figures above stay the first project's, read through a copy of the SDK initialised for it.
   */
  describe('four referral levels', () => {
    let levels: TestProject;
    let sdk: typeof Fuul;
    let usdc: { id: string; address: string };
    const chain: TestWallet[] = [];
    let user: TestWallet;
    const code = (k: number) => `lv${k}${Date.now().toString(36)}`;
    const codes: string[] = [];
    const swaps: string[] = [];
    const use = async (referrer: number, wallet: TestWallet) => {
      const message = `I am using referral code ${codes[referrer]!.toLowerCase()}`;
      return sdk.useReferralCode({
        code: codes[referrer]!,
        user_identifier: wallet.checksumAddress,
        user_identifier_type: EVM,
        signature: await wallet.sign(message),
        signature_message: message,
      });
    };

    beforeAll(async () => {
      levels = await createProject(stack, 'Levels program');
      // The SDK keeps the first init() of its module for good: a fresh copy of it speaks for this project.
      await jest.isolateModulesAsync(async () => {
        sdk = (await import('@fuul/sdk')).Fuul;
      });
      sdk.init({ apiKey: levels.keys.service, baseApiUrl: `${stack.baseUrl}/api/v1/` });
      usdc = await createCurrency(stack, levels, { name: 'USDC', decimals: 6 });
      await putTerms(stack, levels, 'swap', {
        currency_id: usdc.id,
        end_user: { bps: 100 },
        affiliate: { fixed: '40000' },
        affiliate2: { bps: 500 },
        affiliate3: { fixed: '7000' },
        affiliate4: { bps: 125 },
      });
      stack.clock.set('2026-11-01T00:00:00.000Z');
      for (let k = 1; k <= 5; k++) {
        const wallet = await newWallet();
        chain[k] = wallet;
        codes[k] = code(k);
        await sdk.createAffiliateCode({
          userIdentifier: wallet.checksumAddress,
          identifierType: EVM,
          code: codes[k]!,
          signature: await wallet.sign(creationMessage(codes[k]!)),
        });
      }
      for (let k = 1; k <= 4; k++) await use(k + 1, chain[k]!);
      user = await newWallet();
      await use(1, user);
      for (const [at, rewardBase, volume, revenue] of [
        ['2026-11-10T08:00:00.000Z', '1000000', '100', '2'],
        ['2026-11-12T08:00:00.000Z', '333333', '10.5', '0.25'],
      ] as const) {
        stack.clock.set(at);
        const body = conversionBody({ name: 'swap', user: evmUser(user.address), reward_base: rewardBase, volume_usd: volume, revenue_usd: revenue });
        const response = await stack.api.post('/api/v1/conversions/batch', { key: levels.keys.service, body: { conversions: [body] } });
        expect([200, 202]).toContain(response.status);
        await settled(stack, levels, body.id);
        swaps.push(body.id);
      }
      stack.clock.set('2026-11-20T09:00:00.000Z');
      await pollUntil(async () => (await sdk.getAffiliateStats({ user_identifier: chain[4]!.address })).r4_volume === 110.5, {
        timeoutMs: 15_000,
        intervalMs: 50,
        what: 'the agency’s projection to count both swaps at level 4',
      });
    });

    /** What each of A1..A5 was paid, per level, in base units (its movements through the SDK). */
    const earned = async (wallet: TestWallet) =>
      (await sdk.getUserPayoutMovements({ user_identifier: wallet.address, identifier_type: EVM })).results.map((row) => {
        const movement = row as typeof row & { kind: string; level: number | null };
        return [movement.kind, movement.level, movement.total_amount];
      });

    it('pays each level its affiliate_payout with its level, exactly, and nobody at a fifth level', async () => {
      expect(await earned(user)).toEqual([
        ['end_user_payout', null, '3333'],
        ['end_user_payout', null, '10000'],
      ]);
      expect(await earned(chain[1]!)).toEqual([
        ['affiliate_payout', 1, '40000'],
        ['affiliate_payout', 1, '40000'],
      ]);
      expect(await earned(chain[2]!)).toEqual([
        ['affiliate_payout', 2, '16666'],
        ['affiliate_payout', 2, '50000'],
      ]);
      expect(await earned(chain[3]!)).toEqual([
        ['affiliate_payout', 3, '7000'],
        ['affiliate_payout', 3, '7000'],
      ]);
      expect(await earned(chain[4]!)).toEqual([
        ['affiliate_payout', 4, '4166'],
        ['affiliate_payout', 4, '12500'],
      ]);
      expect(await earned(chain[5]!)).toEqual([]);
    });

    it('getAffiliateStats r1..r4 and getAffiliatePaidVolumesByLevel: each level’s figures', async () => {
      expect(await sdk.getAffiliateStats({ user_identifier: chain[2]!.address })).toMatchObject({
        referred_volume: 0,
        r2_volume: 110.5,
        r3_volume: 0,
        r4_volume: 0,
        r2_revenue: 2.25,
        r1_earnings: [],
        r2_earnings: [{ amount: 0.066666, currency: 'USDC' }],
        r3_earnings: [],
        r4_earnings: [],
        total_earnings: [{ amount: 0.066666, currency: 'USDC' }],
      });
      expect(await sdk.getAffiliateStats({ user_identifier: chain[4]!.address, from: '2026-11-12', to: '2026-11-12' })).toMatchObject({
        r4_volume: 10.5,
        r4_revenue: 0.25,
        r4_earnings: [{ amount: 0.004166, currency: 'USDC' }],
      });
      expect(await sdk.getAffiliatePaidVolumesByLevel({ user_identifier: chain[2]!.address })).toMatchObject({
        payout_eligible_l1_volume: 0,
        payout_eligible_l2_volume: 110.5,
        payout_eligible_l2_revenue: 2.25,
        payout_eligible_l2_attributions: 2,
        payout_eligible_l3_volume: 0,
        payout_eligible_l4_volume: 0,
        payout_eligible_total_volume: 110.5,
      });
      expect(await sdk.getAffiliatePaidVolumesByLevel({ user_identifier: chain[5]!.address })).toMatchObject({
        payout_eligible_total_volume: 0,
        payout_eligible_total_attributions: 0,
      });
    });

    it('getReferralTree shows A4’s downline to four levels; getIncentivesByTier the rates of levels 2..4', async () => {
      const tree = await sdk.getReferralTree({ user_identifier: chain[4]!.address });
      const shape = (node: typeof tree): unknown => [node.user_identifier, node.traders, node.total_volume, node.children.map(shape)];
      expect(shape(tree)).toEqual([
        chain[4]!.address,
        0,
        0,
        [[chain[3]!.address, 0, 0, [[chain[2]!.address, 0, 0, [[chain[1]!.address, 1, 110.5, []]]]]]],
      ]);
      const byTier = await sdk.getIncentivesByTier();
      expect(byTier.tiers).toEqual([
        expect.objectContaining({
          tier_id: null,
          payout_terms: [
            expect.objectContaining({
              conversion_name: 'swap',
              is_multi_level: true,
              affiliate_rate: { amount: '40000', currency: usdc.address, unit: 'base_units' },
              affiliate2_rate: { amount: '500', currency: null, unit: 'bps' },
              affiliate3_rate: { amount: '7000', currency: usdc.address, unit: 'base_units' },
              affiliate4_rate: { amount: '125', currency: null, unit: 'bps' },
            }),
          ],
        }),
      ]);
    });

    it('refuses a referral that would close a cycle: A1 referring A5’s wallet answers 409 REFERRAL_CYCLE', async () => {
      expect(await refusal(use(1, chain[5]!))).toMatchObject({ status: 409, body: { code: 'REFERRAL_CYCLE' } });
      expect(await sdk.getReferralStatus({ user_identifier: chain[5]!.address, user_identifier_type: EVM })).toMatchObject({ referred: false });
    });

    it('a rebuild from the claim service’s paid conversions restores every level’s figures exactly, reversals netted', async () => {
      // Half the second swap refunded: each level gives back its floored half (level 2: 8,333 of 16,666).
      const reversed = await stack.api.post(`/api/v1/conversions/${encodeURIComponent(swaps[1]!)}/reverse`, {
        key: levels.keys.service,
        body: { reversal_id: `refund-${swaps[1]}`, reason: 'half refunded', share_bps: 5_000 },
      });
      expect(reversed.status).toBe(201);
      await pollUntil(async () => (await sdk.getAffiliateStats({ user_identifier: chain[4]!.address })).r4_volume === 105.25, {
        timeoutMs: 15_000,
        intervalMs: 50,
        what: 'the reversal to reach the level-4 figures',
      });
      const figures = async () =>
        Promise.all(
          chain.slice(1).map(async (wallet) => ({
            stats: await sdk.getAffiliateStats({ user_identifier: wallet.address }),
            november12: await sdk.getAffiliateStats({ user_identifier: wallet.address, from: '2026-11-12', to: '2026-11-12' }),
            byLevel: await sdk.getAffiliatePaidVolumesByLevel({ user_identifier: wallet.address }),
          })),
        );
      const eventBuilt = await figures();
      expect(eventBuilt[1]!.stats).toMatchObject({ r2_volume: 105.25, r2_earnings: [{ amount: 0.058333, currency: 'USDC' }] });
      expect(eventBuilt[3]!.november12).toMatchObject({ r4_volume: 5.25, r4_earnings: [{ amount: 0.002083, currency: 'USDC' }] });

      // The projection loses every fact, level and applied reversal: rebuilt from ListPaidConversions alone.
      for (const table of ['conversion_fact_levels', 'conversion_fact_reversals', 'conversion_facts'])
        await stack.db.query(`DELETE FROM agency.${table} WHERE project_id = $1`, [levels.id]);
      expect((await sdk.getAffiliateStats({ user_identifier: chain[2]!.address })).r2_volume).toBe(0);
      const rebuilt = await stack.api.post(`/api/v1/projects/${levels.id}/affiliates/metrics/rebuild`, { key: levels.keys.admin });
      expect(rebuilt.body).toEqual({ listed: 2, restored: 2, restored_reversals: 1, conversions: 2, attributed: 2 });
      expect(await figures()).toEqual(eventBuilt);
    });
  });
});
