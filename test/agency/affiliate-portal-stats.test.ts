import { conversionBody, createCurrency, evmUser, putTerms, sendSettledConversions } from '../claim/claim-fixtures';
import { createAffiliate, createProject, randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { affiliateConversionsProjected } from '../helpers/agency-projections';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';
import { newWallet, signIn, type TestWallet } from '../helpers/wallet';

interface Earning {
  currency_address: string | null;
  currency_chain_id: number | null;
  currency_name: string | null;
  currency_decimals: number | null;
  amount: string;
}
interface Day {
  date: string;
  volume_usd: string;
  revenue_usd: string;
  conversions: number;
  referred_volume_usd: string;
  earnings: Earning[];
  agency_earnings: Earning[];
}

/**
 * The affiliate portal's own figures (GET …/affiliate-portal/stats) end to end:
 * conversions sent through the API on different UTC days (the stack's clock), paid by the claim
 * job, applied by the agency's metrics consumer; then what the signed-in affiliate (and its master)
 * reads, day by day and in total.
 */
describe('affiliate portal stats (HTTP)', () => {
  let stack: TestStack;
  let project: TestProject;
  let usdc: { id: string; address: string };
  let dai: { id: string; address: string };
  let alice: TestWallet;
  let master: TestWallet;
  let aliceCode: string;

  const admin = () => ({ key: project.keys.admin });
  const statsPath = (query = '') => `/api/v1/projects/${project.id}/affiliate-portal/stats${query}`;
  const earning = (currency: { address: string }, name: string, decimals: number, amount: string): Earning => ({
    currency_address: currency.address,
    currency_chain_id: 8453,
    currency_name: name,
    currency_decimals: decimals,
    amount,
  });
  const inUsdc = (amount: string) => earning(usdc, 'USDC', 6, amount);
  const inDai = (amount: string) => earning(dai, 'DAI', 18, amount);
  const zeroDay = (date: string): Day => ({
    date,
    volume_usd: '0',
    revenue_usd: '0',
    conversions: 0,
    referred_volume_usd: '0',
    earnings: [],
    agency_earnings: [],
  });

  const emptyLevel = (level: number) => ({ level, volume_usd: '0', revenue_usd: '0', conversions: 0, earnings: [] });

  async function newAffiliate(wallet: TestWallet, name: string, code: string) {
    return (await createAffiliate(stack, project, { identifier: wallet.checksumAddress, identifier_type: 'evm_address', name, code })).id;
  }
  async function send(conversions: Array<Record<string, unknown>>) {
    await sendSettledConversions(stack, project, conversions);
  }

  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    stack.clock.set('2026-11-20T09:00:00.000Z');
    usdc = await createCurrency(stack, project, { name: 'USDC' });
    dai = await createCurrency(stack, project, { name: 'DAI', decimals: 18 });
    await putTerms(stack, project, 'trade', { currency_id: usdc.id, end_user: { bps: 100 }, affiliate: { bps: 1_000 } });
    await putTerms(stack, project, 'swap', { currency_id: dai.id, affiliate: { fixed: '5' } });
    [alice, master] = [await newWallet(), await newWallet()];
    aliceCode = `alice${randomEvmAddress().slice(2, 8)}`;
    await newAffiliate(alice, 'Alice', aliceCode);
    const masterId = await newAffiliate(master, 'Master', `master${randomEvmAddress().slice(2, 8)}`);
    const agencies = `/api/v1/projects/${project.id}/agencies`;
    expect((await stack.api.post(agencies, { ...admin(), body: { user_identifier: master.address, spread_bps: 250 } })).status).toBe(201);
    expect((await stack.api.post(`${agencies}/${masterId}/sub-affiliates`, { ...admin(), body: { user_identifiers: [alice.address] } })).status).toBe(
      200,
    );

    const [u1, u2] = [evmUser(), evmUser()];
    // 2026-11-21, the last millisecond of the UTC day: two users, USDC payouts of 1,000 and 200.
    stack.clock.set('2026-11-21T23:59:59.999Z');
    await send([
      conversionBody({ user: u1, referral_code: aliceCode, volume_usd: '100.5', revenue_usd: '1.25', reward_base: '10000' }),
      conversionBody({ user: u2, referral_code: aliceCode, volume_usd: '0.5', reward_base: '2000' }),
      // Nobody referred this one: it is nobody's figure.
      conversionBody({ user: evmUser(), volume_usd: '999', revenue_usd: '9', reward_base: '10000' }),
    ]);
    // 2026-11-22 is quiet. 2026-11-23, its first millisecond: a swap (5 DAI) and a small trade (50 USDC).
    stack.clock.set('2026-11-23T00:00:00.000Z');
    await send([
      conversionBody({ user: u1, name: 'swap', volume_usd: '20', revenue_usd: '0', reward_base: '10000' }),
      conversionBody({ user: u1, volume_usd: '10', revenue_usd: '0.1', reward_base: '500' }),
    ]);
    stack.clock.set('2026-11-24T15:00:00.000Z');
    await affiliateConversionsProjected(stack, project, 'Alice', 4);
  });
  afterAll(() => stack.stop());

  it('answers the signed-in affiliate’s totals and every UTC day of the range, zero days included, exactly', async () => {
    const token = await signIn(stack, alice);
    const response = await stack.api.get(statsPath('?from=2026-11-20&to=2026-11-24'), { key: token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      volume_usd: '131.0',
      revenue_usd: '1.35',
      conversions: 4,
      end_users: 2,
      converting_users: 2,
      referred_volume_usd: '0',
      earnings: [inDai('5'), inUsdc('1250')],
      agency_earnings: [],
      // All time, whatever the range: level 1 is its own figures; nobody it referred is an affiliate.
      levels: [
        { level: 1, volume_usd: '131.0', revenue_usd: '1.35', conversions: 4, earnings: [inDai('5'), inUsdc('1250')] },
        emptyLevel(2),
        emptyLevel(3),
        emptyLevel(4),
      ],
      series: [
        zeroDay('2026-11-20'),
        { ...zeroDay('2026-11-21'), volume_usd: '101.0', revenue_usd: '1.25', conversions: 2, earnings: [inUsdc('1200')] },
        zeroDay('2026-11-22'),
        { ...zeroDay('2026-11-23'), volume_usd: '30', revenue_usd: '0.1', conversions: 2, earnings: [inDai('5'), inUsdc('50')] },
        zeroDay('2026-11-24'),
      ],
    });
  });

  it('shows the same totals as the affiliate list, whatever the range', async () => {
    const token = await signIn(stack, alice);
    const listed = (await stack.api.get(`/api/v1/projects/${project.id}/affiliates?q=Alice`, admin())).body.results[0];
    const narrow = await stack.api.get(statsPath('?from=2026-11-23&to=2026-11-23'), { key: token });
    expect(narrow.body.series).toEqual([
      { ...zeroDay('2026-11-23'), volume_usd: '30', revenue_usd: '0.1', conversions: 2, earnings: [inDai('5'), inUsdc('50')] },
    ]);
    const { series: _series, levels, ...totals } = narrow.body;
    expect(levels[0]).toEqual({
      level: 1,
      volume_usd: listed.volume_usd,
      revenue_usd: listed.revenue_usd,
      conversions: listed.conversions,
      earnings: listed.earnings,
    });
    expect(totals).toEqual({
      volume_usd: listed.volume_usd,
      revenue_usd: listed.revenue_usd,
      conversions: listed.conversions,
      end_users: listed.end_users,
      converting_users: listed.converting_users,
      referred_volume_usd: listed.referred_volume_usd,
      earnings: listed.earnings,
      agency_earnings: listed.agency_earnings,
    });
  });

  it('shows a master the volume its sub-affiliates brought and its agency payouts, on the days they happened', async () => {
    const token = await signIn(stack, master);
    const response = await stack.api.get(statsPath('?from=2026-11-21&to=2026-11-23'), { key: token });
    expect(response.status).toBe(200);
    // 2.5% of the reward bases, floored: USDC 250 + 50 on the 21st; on the 23rd 12 USDC (of 12.5) and 250 DAI of the swap.
    expect(response.body).toMatchObject({
      volume_usd: '0',
      conversions: 0,
      referred_volume_usd: '131.0',
      earnings: [],
      agency_earnings: [inDai('250'), inUsdc('312')],
      series: [
        { ...zeroDay('2026-11-21'), referred_volume_usd: '101.0', agency_earnings: [inUsdc('300')] },
        zeroDay('2026-11-22'),
        { ...zeroDay('2026-11-23'), referred_volume_usd: '30', agency_earnings: [inDai('250'), inUsdc('12')] },
      ],
    });
  });

  it('covers the last 30 UTC days up to today by default; `to` alone ends there, `from` alone runs to today', async () => {
    const token = await signIn(stack, alice);
    const dates = (body: { series: Day[] }) => body.series.map((day) => day.date);
    const byDefault = await stack.api.get(statsPath(), { key: token });
    expect(byDefault.status).toBe(200);
    expect(byDefault.body.series).toHaveLength(30);
    expect(dates(byDefault.body)[0]).toBe('2026-10-26');
    expect(dates(byDefault.body).at(-1)).toBe('2026-11-24');
    expect(byDefault.body.series.reduce((sum: number, day: Day) => sum + day.conversions, 0)).toBe(4);

    const upTo = await stack.api.get(statsPath('?to=2026-11-22'), { key: token });
    expect(upTo.body.series).toHaveLength(30);
    expect([dates(upTo.body)[0], dates(upTo.body).at(-1)]).toEqual(['2026-10-24', '2026-11-22']);

    const since = await stack.api.get(statsPath('?from=2026-11-23'), { key: token });
    expect(dates(since.body)).toEqual(['2026-11-23', '2026-11-24']);

    // A whole leap year is the longest range.
    const leapYear = await stack.api.get(statsPath('?from=2024-01-01&to=2024-12-31'), { key: token });
    expect(leapYear.status).toBe(200);
    expect(leapYear.body.series).toHaveLength(366);

    // The ends of the calendar read as empty days, never an error.
    for (const days of [
      ['0001-01-01', '0001-01-02', '0001-01-03'],
      ['9999-12-29', '9999-12-30', '9999-12-31'],
    ]) {
      const far = await stack.api.get(statsPath(`?from=${days[0]}&to=${days[2]}`), { key: token });
      expect(far.status).toBe(200);
      expect(dates(far.body)).toEqual(days);
    }
  });

  it('refuses a bad range with 400 naming the field', async () => {
    const token = await signIn(stack, alice);
    const cases: Array<[string, string]> = [
      ['?from=2026-11-24&to=2026-11-23', 'from'],
      ['?from=2024-01-01&to=2025-01-01', 'to'],
      ['?from=2026-02-30', 'from'],
      ['?to=yesterday', 'to'],
      ['?from=2026-11-21T00:00:00Z', 'from'],
    ];
    for (const [query, field] of cases) {
      const response = await stack.api.get(statsPath(query), { key: token });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ status: 400, code: expect.any(String), details: [expect.objectContaining({ field })] });
    }
  });

  it('answers 404 AFFILIATE_NOT_FOUND to a wallet that is no affiliate of the project, and 401 to keys and strangers', async () => {
    const stranger = await signIn(stack, await newWallet());
    expect(await stack.api.get(statsPath(), { key: stranger })).toMatchObject({ status: 404, body: { status: 404, code: 'AFFILIATE_NOT_FOUND' } });
    // Alice is an affiliate of this project only.
    const other = await createProject(stack, 'Other program');
    const elsewhere = await stack.api.get(`/api/v1/projects/${other.id}/affiliate-portal/stats`, { key: await signIn(stack, alice) });
    expect(elsewhere).toMatchObject({ status: 404, body: { code: 'AFFILIATE_NOT_FOUND' } });
    expect((await stack.api.get(statsPath(), admin())).status).toBe(401);
    expect((await stack.api.get(statsPath())).status).toBe(401);
  });

  it('moves a conversion into today’s entry as soon as it is applied', async () => {
    const token = await signIn(stack, alice);
    await send([conversionBody({ user: evmUser(), referral_code: aliceCode, volume_usd: '1', reward_base: '100' })]);
    const today = await pollUntil(
      async () => {
        const response = await stack.api.get(statsPath('?from=2026-11-24&to=2026-11-24'), { key: token });
        return response.body.conversions === 5 ? response.body : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 50, what: 'the fifth conversion in the portal' },
    );
    expect(today).toMatchObject({
      volume_usd: '132.0',
      end_users: 3,
      converting_users: 3,
      earnings: [inDai('5'), inUsdc('1260')],
      series: [{ ...zeroDay('2026-11-24'), volume_usd: '1', conversions: 1, earnings: [inUsdc('10')] }],
    });
  });
});
