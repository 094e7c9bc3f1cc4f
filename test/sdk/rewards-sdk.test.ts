import { Fuul, UserIdentifierType } from '@fuul/sdk';
import { conversionBody, createCurrency, evmUser, putTerms, sendSettledConversions, settled } from '../claim/claim-fixtures';
import { createProject, randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { creationMessage, refusal, initFuulSdk } from '../helpers/fuul-sdk';
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
 * The points and the four referral levels have each their own project below.
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
    await sendSettledConversions(stack, project, bodies);
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
    initFuulSdk(stack, project.keys.service);
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

  /**
   * Issue 25 §1, points paid by terms, in a project of its own on the same stack (read through a copy of the SDK
   * initialised for it, as the levels below). `trade` pays XP (decimals 0): 40 to the user, 10% of reward_base to its
   * affiliate and 5% to the affiliate's upline at level 2; `deposit` pays USDC (2% to the user). Affiliate P1, itself
   * referred by P2, referred v1 and v2. 2026-11-21: v1 trades (reward_base 1,000) and deposits (50,000).
   * 2026-11-23: v2 trades (2,000), v1 trades again (500). So v1 earns 80 XP and 1,000 USDC base units, v2 40 XP,
   * P1 100 + 200 + 50 = 350 XP and P2 50 + 100 + 25 = 175 XP. Also on 2026-11-23 v3, referred by nobody, completes a
   * `quest` (15 XP, held 3 days). Then half of v2's trade is reversed.
   */
  describe('points', () => {
    let points: TestProject;
    let sdk: typeof Fuul;
    let xp: { id: string };
    let usdc: { id: string; address: string };
    const P1 = { identifier: randomEvmAddress(), code: `p1${Date.now().toString(36)}` };
    const P2 = { identifier: randomEvmAddress(), code: `p2${Date.now().toString(36)}` };
    const [v1, v2, v3] = [randomEvmAddress(), randomEvmAddress(), randomEvmAddress()];
    /** v2's trade. */
    let v2Trade: string;

    const convert = async (user: string, name: string, rewardBase: string) => {
      const body = conversionBody({ name, user: evmUser(user), reward_base: rewardBase });
      const sent = await stack.api.post('/api/v1/conversions', { key: points.keys.service, body });
      expect(sent.status).toBe(202);
      await settled(stack, points, body.id);
      return body.id;
    };
    const movements = async (user: string, from_date?: string) =>
      (await sdk.getUserPointsMovements({ user_identifier: user, identifier_type: EVM, from_date })).results.map((row) => {
        const movement = row as typeof row & { level: number | null };
        return [movement.date, movement.conversion_name, movement.total_amount, movement.is_referrer, movement.level, movement.payout_status];
      });

    beforeAll(async () => {
      points = await createProject(stack, 'Points program');
      await jest.isolateModulesAsync(async () => {
        sdk = (await import('@fuul/sdk')).Fuul;
      });
      sdk.init({ apiKey: points.keys.service, baseApiUrl: `${stack.baseUrl}/api/v1/` });
      const created = await stack.api.post(`/api/v1/projects/${points.id}/currencies`, {
        key: points.keys.admin,
        body: { name: 'XP', decimals: 0, type: 'point' },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ chain_id: null, address: null, name: 'XP', decimals: 0, type: 'point' });
      xp = created.body as { id: string };
      usdc = await createCurrency(stack, points, { decimals: 6 });
      await putTerms(stack, points, 'trade', {
        currency_id: xp.id,
        end_user: { fixed: '40' },
        affiliate: { bps: 1_000 },
        affiliate2: { bps: 500 },
      });
      await putTerms(stack, points, 'deposit', { currency_id: usdc.id, end_user: { bps: 200 } });
      await putTerms(stack, points, 'quest', { currency_id: xp.id, end_user: { fixed: '15' }, hold_days: 3 });
      stack.clock.set('2026-11-20T00:00:00.000Z');
      for (const [affiliate, name] of [
        [P2, 'P2'],
        [P1, 'P1'],
      ] as const) {
        await clients.agency.createAffiliate({
          projectId: points.id,
          user: { identifier: affiliate.identifier, identifierType: 'evm_address' },
          name,
          code: affiliate.code,
        });
      }
      for (const [user, code] of [
        [P1.identifier, P2.code],
        [v1, P1.code],
        [v2, P1.code],
      ] as const) {
        await clients.agency.createReferral({ projectId: points.id, user: { identifier: user, identifierType: 'evm_address' }, code });
      }

      stack.clock.set('2026-11-21T13:00:00.000Z');
      await convert(v1, 'trade', '1000');
      await convert(v1, 'deposit', '50000');
      stack.clock.set('2026-11-23T13:00:00.000Z');
      v2Trade = await convert(v2, 'trade', '2000');
      await convert(v1, 'trade', '500');
      await convert(v3, 'quest', '1');
    });

    it('refuses a second point currency (409) and a point currency with a chain (400 naming chain_id), changing nothing', async () => {
      const again = await stack.api.post(`/api/v1/projects/${points.id}/currencies`, {
        key: points.keys.admin,
        body: { name: 'Karma', decimals: 0, type: 'point' },
      });
      expect(again).toMatchObject({ status: 409, body: { code: 'POINT_CURRENCY_EXISTS' } });
      const chained = await stack.api.post(`/api/v1/projects/${points.id}/currencies`, {
        key: points.keys.admin,
        body: { chain_id: 8453, name: 'Karma', decimals: 0, type: 'point' },
      });
      expect(chained).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED', details: [{ field: 'chain_id' }] } });
      const listed = await stack.api.get(`/api/v1/projects/${points.id}/currencies`, { key: points.keys.admin });
      // Both were created at the same (frozen) clock, and ties are ordered by id: compare the set.
      expect(listed.body.results.map((currency: { type: string }) => currency.type).sort()).toEqual(['erc20', 'point']);
    });

    it('getUserPointsMovements: the points only, newest first, both sides and level 2; getUserPayoutMovements the chain currencies only', async () => {
      expect(await movements(v1)).toEqual([
        ['2026-11-23T13:00:00.000Z', 'trade', '40', false, null, 'available'],
        ['2026-11-21T13:00:00.000Z', 'trade', '40', false, null, 'available'],
      ]);
      const [newest] = (await sdk.getUserPointsMovements({ user_identifier: v1, identifier_type: EVM })).results;
      expect(newest).toMatchObject({ currency_address: null, chain_id: null });
      const money = await sdk.getUserPayoutMovements({ user_identifier: v1, identifier_type: EVM });
      expect(money.results.map((movement) => [movement.conversion_name, movement.total_amount, movement.currency_address])).toEqual([
        ['deposit', '1000', usdc.address],
      ]);
      expect((await movements(P1.identifier, '2026-11-23')).map((row) => row.slice(2, 5)).sort()).toEqual([
        ['200', true, 1],
        ['50', true, 1],
      ]);
      // P2 is paid at level 2 for its referral's referred users: 5% of each trade.
      expect((await movements(P2.identifier)).map((row) => row.slice(2, 5)).sort()).toEqual([
        ['100', true, 2],
        ['25', true, 2],
        ['50', true, 2],
      ]);
    });

    it('getUserPointsByConversion sums the points per conversion name and side; getUserPayoutsByConversion leaves them out', async () => {
      const byConversion = async (user: string, from = '2026-11-21', to = '2026-11-23') =>
        (await sdk.getUserPointsByConversion({ user_identifier: user, identifier_type: EVM, from, to })).results;
      expect(await byConversion(v1)).toEqual([
        expect.objectContaining({ is_referrer: false, total_amount: '80', conversion_id: 'trade', conversion_name: 'trade' }),
      ]);
      expect(await byConversion(P1.identifier)).toEqual([
        expect.objectContaining({ is_referrer: true, total_amount: '350', conversion_id: 'trade', conversion_name: 'trade' }),
      ]);
      expect(await byConversion(P2.identifier)).toEqual([
        expect.objectContaining({ is_referrer: true, total_amount: '175', conversion_name: 'trade' }),
      ]);
      // 2026-11-23 only: v1's second trade.
      expect(await byConversion(v1, '2026-11-22', '2026-11-23')).toEqual([expect.objectContaining({ total_amount: '40' })]);
      const money = await sdk.getUserPayoutsByConversion({ user_identifier: v1, identifier_type: EVM, from: '2026-11-21', to: '2026-11-23' });
      expect(money.results.map((sum) => [sum.conversion_name, sum.total_amount])).toEqual([['deposit', '1000']]);
    });

    it('getPointsLeaderboard ranks the points earned, in order, with the user’s own row, paging and calculated_at', async () => {
      const board = await sdk.getPointsLeaderboard({});
      expect(board.results.map((row) => [row.rank, row.address, row.total_amount, row.total_attributions])).toEqual([
        [1, P1.identifier, 350, 3],
        [2, P2.identifier, 175, 3],
      ]);
      expect(board).toMatchObject({ total_results: 2, page: 1, calculated_at: expect.any(String) });
      const own = await sdk.getPointsLeaderboard({ user_identifier: P2.identifier, identifier_type: EVM });
      expect(own.results).toEqual([expect.objectContaining({ address: P2.identifier, rank: 2, total_amount: 175 })]);
      const endUsers = await stack.api.get('/api/v1/payouts/leaderboard/points?user_type=end_user&page_size=1&page=2', { key: points.keys.service });
      expect(endUsers.status).toBe(200);
      expect(endUsers.body).toMatchObject({
        total_results: 2,
        page: 2,
        page_size: 1,
        results: [{ rank: 2, address: v2, total_amount: 40, chain_id: null }],
      });
    });

    it('shows the affiliate’s points among its earnings in the agency’s figures, on no chain', async () => {
      const earningsInXp = (body: unknown): unknown[] => {
        if (Array.isArray(body)) return body.flatMap(earningsInXp);
        if (body === null || typeof body !== 'object') return [];
        const record = body as Record<string, unknown>;
        return [...(record.currency_name === 'XP' ? [record] : []), ...Object.values(record).flatMap(earningsInXp)];
      };
      const found = await pollUntil(
        async () => {
          const detail = await stack.api.get(`/api/v1/projects/${points.id}/affiliates/${P1.identifier}`, { key: points.keys.admin });
          expect(detail.status).toBe(200);
          const earnings = earningsInXp(detail.body);
          return earnings.length > 0 ? earnings : undefined;
        },
        { timeoutMs: 15_000, intervalMs: 50, what: 'the affiliate’s points in its figures' },
      );
      expect(found).toContainEqual(expect.objectContaining({ currency_chain_id: null, currency_address: null, currency_decimals: 0, amount: '350' }));
    });

    // The SDK's statuses: a held movement reads 'pending' until its hold passes.
    it('holds v3’s quest points: a held movement, in no balance yet', async () => {
      expect(await movements(v3)).toEqual([['2026-11-23T13:00:00.000Z', 'quest', '15', false, null, 'pending']]);
      const balance = await stack.api.get(`/api/v1/payouts/points/balance?user_identifier=${v3}`, { key: points.keys.service });
      expect(balance.body).toMatchObject({ balance: '0', credited: '0' });
    });

    it('takes half of v2’s trade back from every side: the movements, balances and board', async () => {
      const reversed = await stack.api.post(`/api/v1/conversions/${encodeURIComponent(v2Trade)}/reverse`, {
        key: points.keys.service,
        body: { reversal_id: `refund-${v2Trade}`, reason: 'refunded', share_bps: 5_000 },
      });
      expect(reversed.status).toBe(201);
      // The movement keeps what it credited; the reversal's share comes off the balance.
      expect(await movements(v2)).toEqual([['2026-11-23T13:00:00.000Z', 'trade', '40', false, null, 'available']]);
      const balance = await stack.api.get(`/api/v1/payouts/points/balance?user_identifier=${P1.identifier}`, { key: points.keys.service });
      expect(balance).toMatchObject({
        status: 200,
        body: { user_identifier: P1.identifier, balance: '250', credited: '350', taken_back: '100', currency: { id: xp.id, type: 'point' } },
      });
      const board = await sdk.getPointsLeaderboard({});
      expect(board.results.map((row) => [row.rank, row.address, row.total_amount])).toEqual([
        [1, P1.identifier, 250],
        [2, P2.identifier, 125],
      ]);
      const top = await stack.api.get(`/api/v1/projects/${points.id}/points/balances`, { key: points.keys.admin });
      expect(top.body.results.map((row: { user_identifier: string; balance: string }) => [row.user_identifier, row.balance])).toEqual([
        [P1.identifier, '250'],
        [P2.identifier, '125'],
        [v1, '80'],
        [v2, '20'],
      ]);
      const one = await stack.api.get(`/api/v1/projects/${points.id}/points/balances?user_identifier=${v2}`, { key: points.keys.admin });
      expect(one.body).toMatchObject({ total_results: 1, results: [{ user_identifier: v2, balance: '20', credited: '40', taken_back: '20' }] });
      const stranger = await stack.api.get(`/api/v1/payouts/points/balance?user_identifier=${randomEvmAddress()}`, { key: points.keys.service });
      expect(stranger.body).toMatchObject({ balance: '0', credited: '0', updated_at: null });
      const anonymous = await refusal(sdk.getUserPointsMovements({ user_identifier: 'not-an-address', identifier_type: EVM }));
      expect(anonymous.status).toBe(400);
    });
  });

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
