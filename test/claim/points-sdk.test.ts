import { Fuul, UserIdentifierType } from '@fuul/sdk';
import { randomEvmAddress, useStackWithProject } from '../helpers/fixtures';
import { refusal } from '../helpers/fuul-sdk';
import { pollUntil } from '../helpers/poll';
import { serviceClients, type ServiceClients } from '../helpers/rpc';
import { conversionBody, createCurrency, evmUser, putTerms, referredUser, settled } from './claim-fixtures';

const EVM = UserIdentifierType.EvmAddress;

/**
 * Issue 25 §1's points through the published @fuul/sdk itself, against the running stack, with exact
 * figures: getUserPointsMovements, getUserPointsByConversion and getPointsLeaderboard, and the balances.
 *
 * The project pays `trade` in points (XP: 40 to the user, 10% of reward_base to the affiliate) and
 * `deposit` in USDC (2% to the user). One affiliate referred u1 and u2. Day 1 (2026-11-21): u1 trades
 * (reward_base 1,000) and deposits (50,000). Day 3: u2 trades (2,000), u1 trades again (500).
 * So u1 earns 80 XP and 1,000 USDC base units, u2 40 XP, the affiliate 100 + 200 + 50 = 350 XP.
 */
describe('points through the @fuul/sdk', () => {
  const { stack, project } = useStackWithProject();
  let clients: ServiceClients;
  let xp: { id: string };
  let usdc: { id: string; address: string };
  let affiliate: string;
  let u1: string;
  let u2: string;
  /** u2's trade. */
  let c3: string;

  const convert = async (user: string, name: string, rewardBase: string) => {
    const body = conversionBody({ name, user: evmUser(user), reward_base: rewardBase });
    const sent = await stack.api.post('/api/v1/conversions', { key: project.keys.service, body });
    expect(sent.status).toBe(202);
    await settled(stack, project, body.id);
    return body.id;
  };

  beforeAll(async () => {
    Fuul.init({ apiKey: project.keys.service, baseApiUrl: `${stack.baseUrl}/api/v1/` });
    clients = serviceClients(stack);
    const created = await stack.api.post(`/api/v1/projects/${project.id}/currencies`, {
      key: project.keys.admin,
      body: { name: 'XP', decimals: 0, type: 'point' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ chain_id: null, address: null, name: 'XP', decimals: 0, type: 'point' });
    xp = created.body as { id: string };
    usdc = await createCurrency(stack, project, { decimals: 6 });
    await putTerms(stack, project, 'trade', { currency_id: xp.id, end_user: { fixed: '40' }, affiliate: { bps: 1_000 } });
    await putTerms(stack, project, 'deposit', { currency_id: usdc.id, end_user: { bps: 200 } });

    const referral = await referredUser(clients, project);
    affiliate = referral.affiliate.identifier;
    u1 = referral.user.identifier;
    u2 = randomEvmAddress();
    await clients.agency.createReferral({ projectId: project.id, user: { identifier: u2, identifierType: 'evm_address' }, code: referral.code });

    stack.clock.set('2026-11-21T13:00:00.000Z');
    await convert(u1, 'trade', '1000');
    await convert(u1, 'deposit', '50000');
    stack.clock.set('2026-11-23T13:00:00.000Z');
    c3 = await convert(u2, 'trade', '2000');
    await convert(u1, 'trade', '500');
  });
  afterAll(() => clients.close());

  it('refuses a second point currency (409) and a point currency with a chain (400 naming chain_id), changing nothing', async () => {
    const again = await stack.api.post(`/api/v1/projects/${project.id}/currencies`, {
      key: project.keys.admin,
      body: { name: 'Karma', decimals: 0, type: 'point' },
    });
    expect(again).toMatchObject({ status: 409, body: { code: 'POINT_CURRENCY_EXISTS' } });
    const chained = await stack.api.post(`/api/v1/projects/${project.id}/currencies`, {
      key: project.keys.admin,
      body: { chain_id: 8453, name: 'Karma', decimals: 0, type: 'point' },
    });
    expect(chained).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED', details: [{ field: 'chain_id' }] } });
    const listed = await stack.api.get(`/api/v1/projects/${project.id}/currencies`, { key: project.keys.admin });
    expect(listed.body.results.map((currency: { type: string }) => currency.type)).toEqual(['point', 'erc20']);
  });

  it('getUserPointsMovements answers the points only, newest first; getUserPayoutMovements the chain currencies only', async () => {
    const points = await Fuul.getUserPointsMovements({ user_identifier: u1, identifier_type: EVM });
    expect(points.total_results).toBe(2);
    expect(points.results.map((movement) => [movement.date, movement.conversion_name, movement.total_amount, movement.is_referrer])).toEqual([
      ['2026-11-23T13:00:00.000Z', 'trade', '40', false],
      ['2026-11-21T13:00:00.000Z', 'trade', '40', false],
    ]);
    expect(points.results[0]).toMatchObject({ payout_status: 'available', currency_address: null, chain_id: null });
    const money = await Fuul.getUserPayoutMovements({ user_identifier: u1, identifier_type: EVM });
    expect(money.results.map((movement) => [movement.conversion_name, movement.total_amount, movement.currency_address])).toEqual([
      ['deposit', '1000', usdc.address],
    ]);
    const affiliatePoints = await Fuul.getUserPointsMovements({ user_identifier: affiliate, identifier_type: EVM, from_date: '2026-11-23' });
    expect(affiliatePoints.results.map((movement) => [movement.total_amount, movement.is_referrer]).sort()).toEqual([
      ['200', true],
      ['50', true],
    ]);
  });

  it('getUserPointsByConversion sums the points per conversion name and side; getUserPayoutsByConversion leaves them out', async () => {
    const byConversion = (user: string, from = '2026-11-21', to = '2026-11-23') =>
      Fuul.getUserPointsByConversion({ user_identifier: user, identifier_type: EVM, from, to });
    expect((await byConversion(u1)).results).toEqual([
      expect.objectContaining({ is_referrer: false, total_amount: '80', conversion_id: 'trade', conversion_name: 'trade' }),
    ]);
    expect((await byConversion(affiliate)).results).toEqual([
      expect.objectContaining({ is_referrer: true, total_amount: '350', conversion_id: 'trade', conversion_name: 'trade' }),
    ]);
    // Day 3 only: u1's second trade.
    expect((await byConversion(u1, '2026-11-22', '2026-11-23')).results).toEqual([expect.objectContaining({ total_amount: '40' })]);
    const money = await Fuul.getUserPayoutsByConversion({ user_identifier: u1, identifier_type: EVM, from: '2026-11-21', to: '2026-11-23' });
    expect(money.results.map((sum) => [sum.conversion_name, sum.total_amount])).toEqual([['deposit', '1000']]);
  });

  it('getPointsLeaderboard ranks the points earned, with the user’s own row, paging and calculated_at', async () => {
    const board = await Fuul.getPointsLeaderboard({});
    expect(board.results).toEqual([expect.objectContaining({ address: affiliate, rank: 1, total_amount: 350, total_attributions: 3 })]);
    expect(board).toMatchObject({ total_results: 1, page: 1, calculated_at: expect.any(String) });
    const own = await Fuul.getPointsLeaderboard({ user_identifier: affiliate, identifier_type: EVM });
    expect(own.results).toEqual([expect.objectContaining({ address: affiliate, rank: 1, total_amount: 350 })]);
    const endUsers = await stack.api.get('/api/v1/payouts/leaderboard/points?user_type=end_user&page_size=1&page=2', { key: project.keys.service });
    expect(endUsers.status).toBe(200);
    expect(endUsers.body).toMatchObject({
      total_results: 2,
      page: 2,
      page_size: 1,
      results: [{ rank: 2, address: u2, total_amount: 40, chain_id: null }],
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
        const detail = await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${affiliate}`, { key: project.keys.admin });
        expect(detail.status).toBe(200);
        const earnings = earningsInXp(detail.body);
        return earnings.length > 0 ? earnings : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 50, what: 'the affiliate’s points in its figures' },
    );
    expect(found).toContainEqual(expect.objectContaining({ currency_chain_id: null, currency_address: null, currency_decimals: 0, amount: '350' }));
  });

  it('takes a reversal of credited points back from the balance and the board', async () => {
    const reversed = await stack.api.post(`/api/v1/conversions/${encodeURIComponent(c3)}/reverse`, {
      key: project.keys.service,
      body: { reversal_id: 'refund-c3', reason: 'refunded', share_bps: 5_000 },
    });
    expect(reversed.status).toBe(201);
    const balance = await stack.api.get(`/api/v1/payouts/points/balance?user_identifier=${affiliate}`, { key: project.keys.service });
    expect(balance).toMatchObject({
      status: 200,
      body: { user_identifier: affiliate, balance: '250', credited: '350', taken_back: '100', currency: { id: xp.id, type: 'point' } },
    });
    const board = await Fuul.getPointsLeaderboard({ user_identifier: affiliate, identifier_type: EVM });
    expect(board.results).toEqual([expect.objectContaining({ total_amount: 250 })]);
    const top = await stack.api.get(`/api/v1/projects/${project.id}/points/balances`, { key: project.keys.admin });
    expect(top.body.results.map((row: { user_identifier: string; balance: string }) => [row.user_identifier, row.balance])).toEqual([
      [affiliate, '250'],
      [u1, '80'],
      [u2, '20'],
    ]);
    const one = await stack.api.get(`/api/v1/projects/${project.id}/points/balances?user_identifier=${u2}`, { key: project.keys.admin });
    expect(one.body).toMatchObject({ total_results: 1, results: [{ user_identifier: u2, balance: '20', credited: '40', taken_back: '20' }] });
    const stranger = await stack.api.get(`/api/v1/payouts/points/balance?user_identifier=${randomEvmAddress()}`, { key: project.keys.service });
    expect(stranger.body).toMatchObject({ balance: '0', credited: '0', updated_at: null });
    const anonymous = await refusal(Fuul.getUserPointsMovements({ user_identifier: 'not-an-address', identifier_type: EVM }));
    expect(anonymous.status).toBe(400);
  });
});
