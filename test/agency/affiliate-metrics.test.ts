import { conversionBody, createCurrency, evmUser, putTerms, sendSettledConversions } from '../claim/claim-fixtures';
import { createProject, randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';

interface ListItem {
  id: string;
  name: string;
  volume_usd: string;
  revenue_usd: string;
  conversions: number;
  end_users: number;
  converting_users: number;
  referred_volume_usd: string;
  earnings: Array<{ currency_address: string; currency_name: string; amount: string }>;
  agency_earnings: Array<{ currency_address: string; amount: string }>;
  tier_protection_days_remaining: number | null;
  tax_status: string;
}

/**
 * The affiliate list's metrics end to end: conversions sent through the API, paid
 * by the claim service's job, their events applied by the agency's consumer; then the list's
 * figures, earnings, sorts and filters, and the rebuild from the claim service, all over HTTP.
 */
describe('affiliate metrics in the affiliate list (HTTP)', () => {
  let stack: TestStack;
  let project: TestProject;
  let usdc: { id: string; address: string };
  let dai: { id: string; address: string };
  const affiliates: Record<'alice' | 'bob' | 'master' | 'idle', { id: string; identifier: string; code: string }> = {} as never;

  const admin = () => ({ key: project.keys.admin });
  const listPath = (query = '') => `/api/v1/projects/${project.id}/affiliates?page_size=100${query}`;
  const list = async (query = ''): Promise<ListItem[]> => {
    const response = await stack.api.get(listPath(query), admin());
    if (response.status !== 200) throw new Error(`list failed: ${response.status} ${response.text}`);
    return response.body.results as ListItem[];
  };
  const byName = (items: ListItem[]) => Object.fromEntries(items.map((item) => [item.name, item]));
  const totalConversions = (items: ListItem[]) => items.reduce((sum, item) => sum + item.conversions, 0);

  async function newAffiliate(name: string) {
    const identifier = randomEvmAddress();
    const code = `${name.toLowerCase()}${Math.random().toString(36).slice(2, 8)}`;
    const response = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
      ...admin(),
      body: { identifier, identifier_type: 'evm_address', name, code },
    });
    if (response.status !== 201) throw new Error(`affiliate creation failed: ${response.status} ${response.text}`);
    return { id: response.body.id as string, identifier, code };
  }
  async function send(conversions: Array<Record<string, unknown>>) {
    await sendSettledConversions(stack, project, conversions);
  }
  /** Waits (bounded poll) until the projection shows this many attributed conversions in the list. */
  const listShowing = (conversions: number) =>
    pollUntil(
      async () => {
        const items = await list();
        return totalConversions(items) === conversions ? items : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 50, what: `the list to show ${conversions} conversions` },
    );

  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    usdc = await createCurrency(stack, project, { name: 'USDC' });
    dai = await createCurrency(stack, project, { name: 'DAI', decimals: 18 });
    await putTerms(stack, project, 'trade', { currency_id: usdc.id, end_user: { bps: 100 }, affiliate: { bps: 1_000 } });
    await putTerms(stack, project, 'swap', { currency_id: dai.id, affiliate: { fixed: '5' } });
    affiliates.alice = await newAffiliate('Alice');
    affiliates.bob = await newAffiliate('Bob');
    affiliates.master = await newAffiliate('Master');
    affiliates.idle = await newAffiliate('Idle');
    const agencies = `/api/v1/projects/${project.id}/agencies`;
    expect((await stack.api.post(agencies, { ...admin(), body: { user_identifier: affiliates.master.identifier, spread_bps: 250 } })).status).toBe(
      201,
    );
    expect(
      (
        await stack.api.post(`${agencies}/${affiliates.master.id}/sub-affiliates`, {
          ...admin(),
          body: { user_identifiers: [affiliates.bob.identifier] },
        })
      ).status,
    ).toBe(200);
    stack.clock.advance(60_000);

    const [u1, u2, u3] = [evmUser(), evmUser(), evmUser()];
    await send([
      conversionBody({ user: u1, referral_code: affiliates.alice.code, volume_usd: '100.5', revenue_usd: '1.25', reward_base: '10000' }),
      conversionBody({ user: u2, referral_code: affiliates.alice.code, volume_usd: '0.5', reward_base: '2000' }),
      conversionBody({ user: u3, referral_code: affiliates.bob.code, volume_usd: '300', revenue_usd: '3', reward_base: '4000' }),
      conversionBody({ user: evmUser(), volume_usd: '999', revenue_usd: '9', reward_base: '10000' }),
    ]);
    stack.clock.advance(60_000);
    await send([
      conversionBody({ user: u1, name: 'swap', volume_usd: '20', revenue_usd: '0' }),
      conversionBody({ user: u3, name: 'signup', volume_usd: '7', revenue_usd: '0.7' }),
    ]);
    // Bob leaves the master: his later conversions are his own, not the master's referred volume.
    stack.clock.advance(60_000);
    expect(
      (await stack.api.request('DELETE', `${agencies}/${affiliates.master.id}/sub-affiliates/${affiliates.bob.identifier}`, admin())).status,
    ).toBe(204);
    stack.clock.advance(60_000);
    await send([conversionBody({ user: u3, volume_usd: '1000', reward_base: '1000' })]);
    // Idle refers three users who never convert: end users all the same (specification §2.9: users brought in).
    for (const user of [evmUser(), evmUser(), evmUser()]) {
      const referral = await stack.api.post('/api/v1/referrals', {
        key: project.keys.service,
        body: { user_identifier: user.identifier, user_identifier_type: 'evm_address', code: affiliates.idle.code },
      });
      expect(referral.status).toBe(201);
    }
    await listShowing(6);
  });
  afterAll(() => stack.stop());

  it('shows each affiliate’s volume, revenue, conversions, end users, referred volume and earnings per currency, exactly', async () => {
    const items = byName(await list());
    const usdcEarning = (amount: string) => ({
      currency_address: usdc.address,
      currency_chain_id: 8453,
      currency_name: 'USDC',
      currency_decimals: 6,
      amount,
    });
    expect(items.Alice).toMatchObject({
      volume_usd: '121.0',
      revenue_usd: '1.25',
      conversions: 3,
      end_users: 2,
      converting_users: 2,
      referred_volume_usd: '0',
      earnings: [
        { currency_address: dai.address, currency_chain_id: 8453, currency_name: 'DAI', currency_decimals: 18, amount: '5' },
        usdcEarning('1200'),
      ],
      agency_earnings: [],
      tier_protection_days_remaining: null,
      tax_status: expect.any(String),
    });
    expect(items.Bob).toMatchObject({
      volume_usd: '1307',
      revenue_usd: '3.7',
      conversions: 3,
      end_users: 1,
      converting_users: 1,
      referred_volume_usd: '0',
      earnings: [usdcEarning('500')],
    });
    // Only what Bob brought while bound (frozen on each conversion): 300 + 7, not the 1,000 after unbinding.
    expect(items.Master).toMatchObject({
      volume_usd: '0',
      conversions: 0,
      end_users: 0,
      converting_users: 0,
      referred_volume_usd: '307',
      earnings: [],
      agency_earnings: [usdcEarning('100')],
    });
    // Referred users who never converted are end users, not converting users.
    expect(items.Idle).toMatchObject({
      volume_usd: '0',
      revenue_usd: '0',
      conversions: 0,
      end_users: 3,
      converting_users: 0,
      earnings: [],
      agency_earnings: [],
    });
  });

  it('sorts by any metric or joined_at, either way, ties by id in the same direction, pages without overlap', async () => {
    const names = (items: ListItem[]) => items.map((item) => item.name);
    const [idle, master] = [affiliates.idle.id, affiliates.master.id];
    const zeroVolumeDesc = idle > master ? ['Idle', 'Master'] : ['Master', 'Idle'];
    expect(names(await list('&sort_by=volume_usd'))).toEqual(['Bob', 'Alice', ...zeroVolumeDesc]);
    expect(names(await list('&sort_by=volume_usd&order=asc'))).toEqual([...[...zeroVolumeDesc].reverse(), 'Alice', 'Bob']);
    expect(names(await list('&sort_by=referred_volume_usd'))[0]).toBe('Master');
    expect(names(await list('&sort_by=end_users'))).toEqual(['Idle', 'Alice', 'Bob', 'Master']);
    expect(names(await list('&sort_by=end_users&order=asc'))).toEqual(['Master', 'Bob', 'Alice', 'Idle']);
    expect(names(await list('&sort_by=revenue_usd')).slice(0, 2)).toEqual(['Bob', 'Alice']);
    // All joined at the same moment (the stack's clock): the ids decide.
    const byId = Object.entries({ Alice: affiliates.alice.id, Bob: affiliates.bob.id, Master: affiliates.master.id, Idle: affiliates.idle.id })
      .sort(([, a], [, b]) => (a < b ? -1 : 1))
      .map(([name]) => name);
    expect(names(await list('&sort_by=joined_at&order=asc'))).toEqual(byId);
    expect(names(await list())).toEqual([...byId].reverse());
    const pages = [];
    for (const page of [1, 2, 3]) {
      const response = await stack.api.get(`/api/v1/projects/${project.id}/affiliates?sort_by=conversions&page_size=2&page=${page}`, admin());
      expect(response.body).toMatchObject({ total_results: 4, page, page_size: 2 });
      pages.push(...names(response.body.results));
    }
    expect(pages).toHaveLength(4);
    expect(new Set(pages).size).toBe(4);
  });

  it('filters by conversion names (at least one of them), combined with the other filters', async () => {
    const names = async (query: string) => (await list(query)).map((item) => item.name).sort();
    expect(await names('&conversions=swap')).toEqual(['Alice']);
    expect(await names('&conversions=swap,signup')).toEqual(['Alice', 'Bob']);
    expect(await names('&conversions=trade')).toEqual(['Alice', 'Bob']);
    expect(await names('&conversions=trade&q=bo')).toEqual(['Bob']);
    expect(await names('&conversions=nothing')).toEqual([]);
    const counted = await stack.api.get(`/api/v1/projects/${project.id}/affiliates?conversions=trade&page_size=1`, admin());
    expect(counted.body).toMatchObject({ total_results: 2, page_size: 1 });
  });

  it('refuses bad parameters with 400 and the field named', async () => {
    const cases: Array<[string, string]> = [
      ['&sort_by=popularity', 'sort_by'],
      ['&order=sideways', 'order'],
      ['&conversions=trade,,swap', 'conversions'],
      [`&conversions=${Array.from({ length: 21 }, (_, i) => `n${i}`).join(',')}`, 'conversions'],
      [`&conversions=${'x'.repeat(101)}`, 'conversions'],
    ];
    for (const [query, field] of cases) {
      const response = await stack.api.get(listPath(query), admin());
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        status: 400,
        code: expect.any(String),
        details: expect.arrayContaining([expect.objectContaining({ field: expect.stringContaining(field) })]),
      });
    }
  });

  it('rebuilds from the claim service to exactly the incremental result, and restores lost facts', async () => {
    const rebuild = (key = project.keys.admin) => stack.api.post(`/api/v1/projects/${project.id}/affiliates/metrics/rebuild`, { key });
    const incremental = await list();
    const first = await rebuild();
    expect(first).toMatchObject({ status: 200, body: { listed: 7, restored: 0, conversions: 7, attributed: 6 } });
    expect(await list()).toEqual(incremental);

    // The projection loses its facts and its figures go wrong: the rebuild brings both back.
    await stack.db.query('DELETE FROM agency.conversion_facts WHERE project_id = $1', [project.id]);
    await stack.db.query(
      'UPDATE agency.affiliate_metrics SET volume_usd = 5, conversions = 99, end_users = 40, converting_users = 41 WHERE project_id = $1',
      [project.id],
    );
    expect((await rebuild()).body).toEqual({ listed: 7, restored: 7, restored_reversals: 0, conversions: 7, attributed: 6 });
    expect(await list()).toEqual(incremental);

    expect((await rebuild(project.keys.readOnly)).status).toBe(403);
    const other = await createProject(stack, 'Other program');
    const foreign = await stack.api.post(`/api/v1/projects/${project.id}/affiliates/metrics/rebuild`, { key: other.keys.admin });
    expect(foreign.status).toBe(404);
  });
});
