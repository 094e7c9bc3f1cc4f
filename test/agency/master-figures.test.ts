import { conversionBody, createCurrency, evmUser, putTerms, sendAttributedConversions } from '../claim/claim-fixtures';
import { newNamedAffiliate, startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';
import { sumUsd, usdUnits } from '../helpers/usd';

const SECOND = 1_000;

interface Earning {
  currency_address: string | null;
  amount: string;
}
interface SubAffiliate {
  id: string;
  name: string;
  bound: boolean;
  referred_volume_usd: string;
  referred_conversions: number;
  agency_earnings: Earning[];
  volume_usd: string;
  conversions: number;
}
interface Affiliate {
  id: string;
  identifier: string;
  code: string;
}

/** Amounts per currency address, summed. */
const perCurrency = (earnings: Earning[]) => {
  const sums: Record<string, bigint> = {};
  for (const earning of earnings) sums[earning.currency_address!] = (sums[earning.currency_address!] ?? 0n) + BigInt(earning.amount);
  return sums;
};

/**
 * A master affiliate's figures add up, over HTTP with conversions sent through the
 * API: its referred_volume_usd, sub_affiliates_count and per-currency earnings equal the sums over
 * its sub-affiliates (former ones included, for the period they were bound), before and after one
 * is unbound and after master status is removed; and the sub-affiliate list's sorts over real figures.
 */
describe('master affiliate figures equal the sums over its sub-affiliates (HTTP)', () => {
  let stack: TestStack;
  let project: TestProject;
  let usdc: { id: string; address: string };
  let dai: { id: string; address: string };
  let master: Affiliate;
  let sam: Affiliate;
  let tia: Affiliate;
  let uma: Affiliate;
  let xeno: Affiliate;

  const admin = () => ({ key: project.keys.admin });
  const agencies = () => `/api/v1/projects/${project.id}/agencies`;
  const subsPath = (query = '') => `${agencies()}/${master.id}/sub-affiliates?page_size=100${query}`;
  const subs = async (query = ''): Promise<SubAffiliate[]> => {
    const response = await stack.api.get(subsPath(query), admin());
    if (response.status !== 200) throw new Error(`sub-affiliates failed: ${response.status} ${response.text}`);
    return response.body.results as SubAffiliate[];
  };
  const names = async (query: string) => (await subs(query)).map((sub) => sub.name);

  const newAffiliate = (name: string): Promise<Affiliate> => newNamedAffiliate(stack, project, name);
  const bind = async (affiliate: Affiliate) => {
    const response = await stack.api.post(`${agencies()}/${master.id}/sub-affiliates`, {
      ...admin(),
      body: { user_identifiers: [affiliate.identifier] },
    });
    expect(response.status).toBe(200);
  };
  const send = (conversions: Array<Record<string, unknown>>) => sendAttributedConversions(stack, project, conversions);
  const trade = (affiliate: Affiliate, user: ReturnType<typeof evmUser>, volume: string, rewardBase: string, revenue = '0') =>
    conversionBody({ user, referral_code: affiliate.code, volume_usd: volume, revenue_usd: revenue, reward_base: rewardBase });

  /**
   * The invariant, read from the API: the master's referred volume, count and earnings are the sums
   * over the sub-affiliate list (bound and former), and the agencies list says the same as the detail.
   */
  async function expectFiguresAddUp() {
    const detail = (await stack.api.get(`${agencies()}/${master.id}`, admin())).body;
    const all = await subs();
    expect(usdUnits(detail.referred_volume_usd)).toBe(sumUsd(all.map((sub) => sub.referred_volume_usd)));
    expect(detail.sub_affiliates_count).toBe(all.filter((sub) => sub.bound).length);
    expect(perCurrency(detail.earnings)).toEqual(perCurrency(all.flatMap((sub) => sub.agency_earnings)));
    const listed = (await stack.api.get(agencies(), admin())).body.results.find((item: { id: string }) => item.id === master.id);
    expect(listed).toMatchObject({
      referred_volume_usd: detail.referred_volume_usd,
      sub_affiliates_count: detail.sub_affiliates_count,
      earnings: detail.earnings,
    });
    // The affiliate list and detail carry the same figures for the master.
    const asAffiliate = (await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${master.identifier}`, admin())).body;
    expect(asAffiliate.referred_volume_usd).toBe(detail.referred_volume_usd);
    expect(perCurrency(asAffiliate.agency_earnings)).toEqual(perCurrency(detail.earnings));
    return { detail, all };
  }

  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    usdc = await createCurrency(stack, project, { name: 'USDC' });
    dai = await createCurrency(stack, project, { name: 'DAI', decimals: 18 });
    await putTerms(stack, project, 'trade', { currency_id: usdc.id, affiliate: { bps: 1_000 } });
    await putTerms(stack, project, 'swap', { currency_id: dai.id, affiliate: { fixed: '5' } });
    master = await newAffiliate('Master');
    [sam, tia, uma, xeno] = [await newAffiliate('Sam'), await newAffiliate('Tia'), await newAffiliate('Uma'), await newAffiliate('Xeno')];
    expect((await stack.api.post(agencies(), { ...admin(), body: { user_identifier: master.identifier, spread_bps: 300 } })).status).toBe(201);
    // One at a time, so the default sort (newest binding first) has one answer.
    for (const sub of [sam, tia, uma]) {
      await bind(sub);
      stack.clock.advance(SECOND);
    }
  });
  afterAll(() => stack.stop());

  const u1 = evmUser();
  const u2 = evmUser();

  it('adds up while all are bound: referred volume, count and earnings per currency, exactly', async () => {
    await send([
      trade(sam, u1, '100.25', '10000', '1'),
      conversionBody({ user: u1, name: 'swap', referral_code: sam.code, volume_usd: '5', reward_base: '2000' }),
      trade(tia, u2, '40', '3333', '2.5'),
      trade(tia, evmUser(), '0.75', '100'),
      // Not a sub-affiliate: never the master's.
      trade(xeno, evmUser(), '1000', '10000'),
    ]);
    const { detail, all } = await expectFiguresAddUp();
    // 3% of the reward bases, floored per conversion: USDC 300 + 99 (of 99.99) + 3, DAI 60.
    expect(detail).toMatchObject({ referred_volume_usd: '146.00', sub_affiliates_count: 3 });
    expect(perCurrency(detail.earnings)).toEqual({ [usdc.address]: 402n, [dai.address]: 60n });
    expect(Object.fromEntries(all.map((sub) => [sub.name, [sub.bound, sub.referred_volume_usd, sub.referred_conversions]]))).toEqual({
      Sam: [true, '105.25', 2],
      Tia: [true, '40.75', 2],
      Uma: [true, '0', 0],
    });
  });

  it('keeps an unbound sub-affiliate’s figures for the period it was bound; its later conversions are no longer the master’s', async () => {
    stack.clock.advance(SECOND);
    expect((await stack.api.delete(`${agencies()}/${master.id}/sub-affiliates/${sam.identifier}`, admin())).status).toBe(204);
    stack.clock.advance(SECOND);
    await send([trade(sam, u1, '50', '1000'), trade(sam, evmUser(), '1', '100'), trade(tia, u2, '10', '1000')]);
    const { detail, all } = await expectFiguresAddUp();
    expect(detail).toMatchObject({ referred_volume_usd: '156.00', sub_affiliates_count: 2 });
    expect(perCurrency(detail.earnings)).toEqual({ [usdc.address]: 432n, [dai.address]: 60n });
    const sam_ = all.find((sub) => sub.name === 'Sam')!;
    expect(sam_).toMatchObject({ bound: false, referred_volume_usd: '105.25', referred_conversions: 2, volume_usd: '156.25', conversions: 4 });
    expect(await names('&bound=false')).toEqual(['Sam']);
    expect((await names('&bound=true&sort_by=name')).sort()).toEqual(['Tia', 'Uma']);
  });

  it('sorts the sub-affiliates by each figure, either way, and pages them', async () => {
    expect(await names('')).toEqual(['Uma', 'Tia', 'Sam']);
    expect(await names('&sort_by=bound_at&order=asc')).toEqual(['Sam', 'Tia', 'Uma']);
    expect(await names('&sort_by=referred_volume')).toEqual(['Sam', 'Tia', 'Uma']);
    expect(await names('&sort_by=referred_volume&order=asc')).toEqual(['Uma', 'Tia', 'Sam']);
    expect(await names('&sort_by=referred_conversions')).toEqual(['Tia', 'Sam', 'Uma']);
    expect(await names('&sort_by=volume_usd')).toEqual(['Sam', 'Tia', 'Uma']);
    expect(await names('&sort_by=revenue_usd')).toEqual(['Tia', 'Sam', 'Uma']);
    expect(await names('&sort_by=conversions')).toEqual(['Sam', 'Tia', 'Uma']);
    expect(await names('&sort_by=conversions&order=asc')).toEqual(['Uma', 'Tia', 'Sam']);
    expect(await names('&sort_by=name')).toEqual(['Sam', 'Tia', 'Uma']);
    expect(await names('&sort_by=name&order=desc')).toEqual(['Uma', 'Tia', 'Sam']);
    const second = await stack.api.get(`${agencies()}/${master.id}/sub-affiliates?sort_by=referred_volume&page=2&page_size=1`, admin());
    expect(second.body).toMatchObject({ total_results: 3, page: 2, page_size: 1, results: [{ name: 'Tia' }] });
    expect((await stack.api.get(`${agencies()}/${master.id}/sub-affiliates?sort_by=referred_volume&order=up`, admin())).status).toBe(400);
  });

  it('after master removal: the agency paths answer 404, the affiliate keeps its master figures, and later conversions pay no master', async () => {
    stack.clock.advance(SECOND);
    expect(await stack.api.delete(`${agencies()}/${master.id}`, admin())).toMatchObject({ status: 200, body: { released_sub_affiliates: 2 } });
    stack.clock.advance(SECOND);
    await send([trade(tia, u2, '7', '1000')]);

    expect(await stack.api.get(`${agencies()}/${master.id}`, admin())).toMatchObject({ status: 404, body: { code: 'AGENCY_NOT_FOUND' } });
    expect(await stack.api.get(subsPath(), admin())).toMatchObject({ status: 404, body: { code: 'AGENCY_NOT_FOUND' } });
    expect((await stack.api.get(agencies(), admin())).body.results.map((item: { id: string }) => item.id)).not.toContain(master.id);
    // What it earned and brought in as a master stays on the affiliate: nothing of history is lost.
    const asAffiliate = (await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${master.identifier}`, admin())).body;
    expect(asAffiliate).toMatchObject({ is_master: false, referred_volume_usd: '156.00', links: { sub_affiliates: null } });
    expect(perCurrency(asAffiliate.agency_earnings)).toEqual({ [usdc.address]: 432n, [dai.address]: 60n });
    const tiaNow = (await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${tia.identifier}`, admin())).body;
    expect(tiaNow).toMatchObject({ master: null, volume_usd: '57.75', conversions: 4 });
  });

  it('designated again, the master shows its former sub-affiliates (bound: false) and figures that still add up', async () => {
    stack.clock.advance(SECOND);
    expect((await stack.api.post(agencies(), { ...admin(), body: { user_identifier: master.identifier, spread_bps: 100 } })).status).toBe(201);
    const { detail, all } = await expectFiguresAddUp();
    expect(detail).toMatchObject({ referred_volume_usd: '156.00', sub_affiliates_count: 0 });
    expect(all.map((sub) => [sub.name, sub.bound]).sort()).toEqual([
      ['Sam', false],
      ['Tia', false],
      ['Uma', false],
    ]);
    // Tia's conversion while no master held her counts for nobody.
    expect(all.find((sub) => sub.name === 'Tia')).toMatchObject({
      referred_volume_usd: '50.75',
      referred_conversions: 3,
      volume_usd: '57.75',
      conversions: 4,
    });
  });
});
