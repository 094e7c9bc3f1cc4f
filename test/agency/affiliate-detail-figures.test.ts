import { conversionBody, createCurrency, evmUser, putTerms, sendSettledConversions } from '../claim/claim-fixtures';
import { randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';
import { sumUsd, usdUnits } from '../helpers/usd';

interface Affiliate {
  id: string;
  identifier: string;
  code: string;
}

/**
 * The figures of the affiliate detail view over HTTP with conversions sent through
 * the API on two UTC days: the referral tree (each referred user's volume, revenue and conversions,
 * and its sorts) and the history's payouts by day (per currency and kind, newest first, paged).
 */
describe('affiliate detail figures: referral tree and payouts by day (HTTP)', () => {
  let stack: TestStack;
  let project: TestProject;
  let usdc: { id: string; address: string };
  let dai: { id: string; address: string };
  let rita: Affiliate;
  let mo: Affiliate;
  const [r1, r2, r3, r4] = [evmUser(), evmUser(), evmUser(), evmUser()];
  let sent = 0;

  const admin = () => ({ key: project.keys.admin });
  const base = () => `/api/v1/projects/${project.id}/affiliates`;

  async function newAffiliate(name: string): Promise<Affiliate> {
    const identifier = randomEvmAddress();
    const code = `${name.toLowerCase()}${randomEvmAddress().slice(2, 8)}`;
    const response = await stack.api.post(base(), { ...admin(), body: { identifier, identifier_type: 'evm_address', name, code } });
    if (response.status !== 201) throw new Error(`affiliate creation failed: ${response.status} ${response.text}`);
    return { id: response.body.id as string, identifier, code };
  }
  const refer = async (user: { identifier: string }, code: string) => {
    const response = await stack.api.post('/api/v1/referrals', {
      key: project.keys.service,
      body: { user_identifier: user.identifier, user_identifier_type: 'evm_address', code },
    });
    expect(response.status).toBe(201);
  };
  /** Sends conversions and waits until the projection counts them all for Rita. */
  async function send(conversions: Array<Record<string, unknown>>) {
    await sendSettledConversions(stack, project, conversions);
    sent += conversions.length;
    await pollUntil(async () => (await stack.api.get(`${base()}/${rita.identifier}`, admin())).body.conversions === sent, {
      timeoutMs: 15_000,
      intervalMs: 50,
      what: `Rita's ${sent} conversions in the projection`,
    });
  }
  const trade = (user: { identifier: string }, volume: string, revenue: string, rewardBase: string, extra: Record<string, unknown> = {}) =>
    conversionBody({ user: evmUser(user.identifier), volume_usd: volume, revenue_usd: revenue, reward_base: rewardBase, ...extra });
  const currency = (c: { id: string; address: string }, name: string, decimals: number) => ({
    currency_id: c.id,
    currency_chain_id: 8453,
    currency_address: c.address,
    currency_name: name,
    currency_decimals: decimals,
  });
  const payouts = (at: string, date: string, c: ReturnType<typeof currency>, kind: string, amount: string, conversions: number) => ({
    type: 'payouts',
    at,
    data: { date, ...c, kind, amount, conversions },
  });

  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    stack.clock.set('2026-11-21T10:00:00.000Z');
    usdc = await createCurrency(stack, project, { name: 'USDC' });
    dai = await createCurrency(stack, project, { name: 'DAI', decimals: 18 });
    await putTerms(stack, project, 'trade', { currency_id: usdc.id, affiliate: { bps: 1_000 } });
    await putTerms(stack, project, 'swap', { currency_id: dai.id, affiliate: { fixed: '5' } });
    [rita, mo] = [await newAffiliate('Rita'), await newAffiliate('Mo')];
    expect(
      (await stack.api.post(`/api/v1/projects/${project.id}/agencies`, { ...admin(), body: { user_identifier: mo.identifier, spread_bps: 200 } }))
        .status,
    ).toBe(201);
    stack.clock.set('2026-11-21T10:00:01.000Z');
    const bound = await stack.api.post(`/api/v1/projects/${project.id}/agencies/${mo.id}/sub-affiliates`, {
      ...admin(),
      body: { user_identifiers: [rita.identifier] },
    });
    expect(bound.status).toBe(200);
    for (const [minute, user] of [r1, r2, r3].entries()) {
      stack.clock.set(`2026-11-21T10:0${minute + 1}:00.000Z`);
      await refer(user, rita.code);
    }

    // Day one: two trades (USDC 100 and 500 to Rita; 20 and 100 to Mo), then a swap an hour later (DAI 5; 20 to Mo).
    stack.clock.set('2026-11-21T12:00:00.000Z');
    await send([trade(r1, '10', '1', '1000'), trade(r2, '200', '0.5', '5000')]);
    stack.clock.set('2026-11-21T13:00:00.000Z');
    await send([trade(r2, '3', '0', '1000', { name: 'swap' })]);
    // Day two: three trades, one by a user its code brings (USDC 10 + 10 + 200 to Rita; 2 + 2 + 40 to Mo).
    stack.clock.set('2026-11-22T09:00:00.000Z');
    await send([trade(r1, '1.5', '3', '100'), trade(r1, '0.5', '0', '100'), trade(r4, '50', '0', '2000', { referral_code: rita.code })]);
  });
  afterAll(() => stack.stop());

  describe('the referral tree', () => {
    const referred = (user: { identifier: string }, referredAt: string, volume: string, revenue: string, conversions: number) => ({
      identifier: user.identifier,
      identifier_type: 'evm_address',
      code: rita.code,
      referred_at: referredAt,
      volume_usd: volume,
      revenue_usd: revenue,
      conversions,
    });
    const identifiers = async (query: string) =>
      (await stack.api.get(`${base()}/${rita.identifier}/referrals?${query}`, admin())).body.results.map(
        (user: { identifier: string }) => user.identifier,
      );

    it('answers each referred user with the volume, revenue and conversions it brought, newest referral first', async () => {
      const response = await stack.api.get(`${base()}/${rita.identifier}/referrals`, { key: project.keys.readOnly });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        results: [
          referred(r4, '2026-11-22T09:00:00.000Z', '50', '0', 1),
          referred(r3, '2026-11-21T10:03:00.000Z', '0', '0', 0),
          referred(r2, '2026-11-21T10:02:00.000Z', '203', '0.5', 2),
          referred(r1, '2026-11-21T10:01:00.000Z', '12.0', '4', 3),
        ],
        total_results: 4,
        page: 1,
        page_size: 25,
      });
    });

    it('sorts by volume, revenue or conversions, highest first, ties newest referral first, and pages', async () => {
      expect(await identifiers('sort_by=volume_usd')).toEqual([r2, r4, r1, r3].map((user) => user.identifier));
      expect(await identifiers('sort_by=revenue_usd')).toEqual([r1, r2, r4, r3].map((user) => user.identifier));
      expect(await identifiers('sort_by=conversions')).toEqual([r1, r2, r4, r3].map((user) => user.identifier));
      expect(await identifiers('sort_by=referred_at')).toEqual([r4, r3, r2, r1].map((user) => user.identifier));
      const second = await stack.api.get(`${base()}/${rita.identifier}/referrals?sort_by=volume_usd&page=2&page_size=3`, admin());
      expect(second.body).toMatchObject({ total_results: 4, page: 2, page_size: 3, results: [{ identifier: r3.identifier, conversions: 0 }] });
    });

    it('adds up to the affiliate’s own figures: volume, revenue, conversions, end users as every user referred and converting users as those with a conversion', async () => {
      const tree = (await stack.api.get(`${base()}/${rita.identifier}/referrals`, admin())).body.results as Array<{
        volume_usd: string;
        revenue_usd: string;
        conversions: number;
      }>;
      const own = (await stack.api.get(`${base()}/${rita.identifier}`, admin())).body;
      expect(own).toMatchObject({ volume_usd: '265.0', revenue_usd: '4.5', conversions: 6, end_users: 4, converting_users: 3 });
      expect(sumUsd(tree.map((user) => user.volume_usd))).toBe(usdUnits(own.volume_usd));
      expect(sumUsd(tree.map((user) => user.revenue_usd))).toBe(usdUnits(own.revenue_usd));
      expect(tree.reduce((sum, user) => sum + user.conversions, 0)).toBe(own.conversions);
      expect(tree).toHaveLength(own.end_users);
      expect(tree.filter((user) => user.conversions > 0)).toHaveLength(own.converting_users);
      // The master brought no user itself: its tree is empty though its sub-affiliate's are its referred volume.
      expect((await stack.api.get(`${base()}/${mo.identifier}/referrals`, admin())).body).toMatchObject({ results: [], total_results: 0 });
    });
  });

  describe('payouts by day in the history', () => {
    const history = async (identifier: string, query = '') => {
      const response = await stack.api.get(`${base()}/${identifier}/history${query}`, admin());
      expect(response.status).toBe(200);
      return response.body;
    };

    it('answers the affiliate’s payouts per UTC day and currency, exact, newest first, above its older entries', async () => {
      const body = await history(rita.identifier);
      expect(body.results.slice(0, 3)).toEqual([
        payouts('2026-11-22T09:00:00.000Z', '2026-11-22', currency(usdc, 'USDC', 6), 'affiliate_payout', '220', 3),
        payouts('2026-11-21T13:00:00.000Z', '2026-11-21', currency(dai, 'DAI', 18), 'affiliate_payout', '5', 1),
        payouts('2026-11-21T12:00:00.000Z', '2026-11-21', currency(usdc, 'USDC', 6), 'affiliate_payout', '600', 2),
      ]);
      expect(body.results.slice(3).map((entry: { type: string }) => entry.type)).toEqual(['bound_to_master', 'code_created', 'joined']);
      expect(body.total_results).toBe(6);
    });

    it('answers a master’s agency payouts from its sub-affiliate’s conversions, per day and currency', async () => {
      const body = await history(mo.identifier);
      expect(body.results.slice(0, 3)).toEqual([
        payouts('2026-11-22T09:00:00.000Z', '2026-11-22', currency(usdc, 'USDC', 6), 'agency_payout', '44', 3),
        payouts('2026-11-21T13:00:00.000Z', '2026-11-21', currency(dai, 'DAI', 18), 'agency_payout', '20', 1),
        payouts('2026-11-21T12:00:00.000Z', '2026-11-21', currency(usdc, 'USDC', 6), 'agency_payout', '120', 2),
      ]);
      expect(body.results.slice(3).map((entry: { type: string }) => entry.type)).toEqual([
        'sub_affiliate_bound',
        'master_designated',
        'code_created',
        'joined',
      ]);
    });

    it('pages the same entries in the same order, none repeated or skipped', async () => {
      const all = (await history(rita.identifier)).results;
      const pages = [];
      for (const page of [1, 2, 3, 4]) {
        const body = await history(rita.identifier, `?page=${page}&page_size=2`);
        expect(body).toMatchObject({ total_results: 6, page, page_size: 2 });
        pages.push(...body.results);
      }
      expect(pages).toEqual(all);
    });
  });
});
