import { Fuul } from '@fuul/sdk';
import { conversionBody, createCurrency, evmUser, putTerms, sendSettledConversions } from '../claim/claim-fixtures';
import { createAffiliate, randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { refusal, initFuulSdk } from '../helpers/fuul-sdk';
import { affiliateConversionsProjected } from '../helpers/agency-projections';
import type { TestStack } from '../helpers/stack';
import { newWallet, signIn, type TestWallet } from '../helpers/wallet';

/**
 * Issue 25 §4, the affiliate stats API, through the published @fuul/sdk (its service_role key) against
 * the running stack: conversions with awkward amounts sent on the edges of a month and of an ISO week
 * (the stack's clock), paid by the claim job, applied by the agency's projection; then every figure
 * the SDK reads, exactly. Referrals are one level deep: r2..r4 read zero.
 */
describe('the affiliate stats API through the @fuul/sdk', () => {
  let stack: TestStack;
  let project: TestProject;
  let alice: TestWallet;
  let aliceId: string;
  let aliceCode: string;
  let usdc: { id: string };
  const [u1, u2] = [evmUser(), evmUser()];
  const admin = () => ({ key: project.keys.admin });

  async function newAffiliate(wallet: { checksumAddress: string }, name: string, code: string, region: string) {
    return (await createAffiliate(stack, project, { identifier: wallet.checksumAddress, identifier_type: 'evm_address', name, code, region })).id;
  }
  async function send(at: string, conversions: Array<Record<string, unknown>>) {
    stack.clock.set(at);
    await sendSettledConversions(stack, project, conversions);
  }

  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    initFuulSdk(stack, project.keys.service);
    stack.clock.set('2026-10-20T09:00:00.000Z');
    usdc = await createCurrency(stack, project, { name: 'USDC', decimals: 6 });
    const dai = await createCurrency(stack, project, { name: 'DAI', decimals: 18 });
    await putTerms(stack, project, 'trade', { currency_id: usdc.id, affiliate: { bps: 1_000 } });
    await putTerms(stack, project, 'swap', { currency_id: dai.id, affiliate: { fixed: '1500000000000000001' } });
    alice = await newWallet();
    aliceCode = `alice${randomEvmAddress().slice(2, 8)}`;
    aliceId = await newAffiliate(alice, 'Alice', aliceCode, 'JP');
    const bob = { checksumAddress: randomEvmAddress() };
    await newAffiliate(bob, 'Bob', `bob${randomEvmAddress().slice(2, 8)}`, 'KR');
    const suspended = await stack.api.post(`/api/v1/projects/${project.id}/affiliates/${bob.checksumAddress}/suspend`, {
      ...admin(),
      body: { reason: 'test' },
    });
    expect(suspended.status).toBe(200);

    // Saturday 2026-10-31, the last millisecond of October (ISO week of Monday 10-26): 10% of 1,234,567 is 123,456 USDC units (floored).
    await send('2026-10-31T23:59:59.999Z', [
      conversionBody({ user: u1, referral_code: aliceCode, volume_usd: '100.5', revenue_usd: '1.25', reward_base: '1234567' }),
      // Nobody referred this one: it is nobody's figure.
      conversionBody({ user: evmUser(), volume_usd: '999', revenue_usd: '9', reward_base: '10000' }),
    ]);
    // Sunday 2026-11-01, its first millisecond: November, but still the week of 10-26. 99 units (of 99.9).
    await send('2026-11-01T00:00:00.000Z', [
      conversionBody({ user: u2, referral_code: aliceCode, volume_usd: '0.5', revenue_usd: '0.01', reward_base: '999' }),
    ]);
    // Monday 2026-11-02: a new week. A swap paying 1.500000000000000001 DAI, and a mint no terms pay (not payout-eligible).
    await send('2026-11-02T00:00:00.000Z', [
      conversionBody({ user: u1, name: 'swap', volume_usd: '20', revenue_usd: '0', reward_base: '10000' }),
      conversionBody({ user: u2, name: 'mint', volume_usd: '7.25', revenue_usd: '0.5', reward_base: '10000' }),
    ]);
    stack.clock.set('2026-11-24T15:00:00.000Z');
    await affiliateConversionsProjected(stack, project, 'Alice', 4);
  });
  afterAll(() => stack.stop());

  const zeroLevels = {
    r2_volume: 0,
    r3_volume: 0,
    r4_volume: 0,
    multilevel_volume: 0,
    r2_revenue: 0,
    r3_revenue: 0,
    r4_revenue: 0,
    r2_earnings: [],
    r3_earnings: [],
    r4_earnings: [],
    active_referred_users_r2: 0,
    active_referred_users_r3: 0,
    active_referred_users_r4: 0,
  };

  it('getAffiliateStats: all time, the figures of the affiliate list, per level, with its status and codes', async () => {
    const stats = await Fuul.getAffiliateStats({ user_identifier: alice.checksumAddress });
    const earnings = [
      { amount: 1.5, currency: 'DAI' },
      { amount: 0.123555, currency: 'USDC' },
    ];
    expect(stats).toEqual({
      user_identifier: alice.address,
      user_identifier_type: 'evm_address',
      total_earnings: earnings,
      referred_volume: 128.25,
      total_volume: 128.25,
      end_user_volume: 128.25,
      referred_revenue: 1.76,
      referred_attributions: 4,
      r1_earnings: earnings,
      referred_users: 2,
      active_referrers: 2,
      total_referrers: 2,
      assigned_referrers: 2,
      status: 'Active',
      region: null,
      referral_codes: [aliceCode],
      effective_tier: null,
      current_tier: null,
      ...zeroLevels,
    });
    const listed = (await stack.api.get(`/api/v1/projects/${project.id}/affiliates?q=Alice`, admin())).body.results[0];
    expect([Number(listed.volume_usd), Number(listed.revenue_usd), listed.conversions]).toEqual([128.25, 1.76, 4]);
  });

  it('getAffiliateStats: a range of UTC days, this month, one conversion name', async () => {
    const firstOfNovember = await Fuul.getAffiliateStats({ user_identifier: alice.address, from: '2026-11-01', to: '2026-11-01' });
    expect(firstOfNovember).toMatchObject({
      referred_volume: 0.5,
      referred_revenue: 0.01,
      referred_attributions: 1,
      referred_users: 1,
      r1_earnings: [{ amount: 0.000099, currency: 'USDC' }],
      // All time, whatever the range.
      total_referrers: 2,
    });
    const thisMonth = await Fuul.getAffiliateStats({ user_identifier: alice.address, this_month: true });
    expect(thisMonth).toMatchObject({
      referred_volume: 27.75,
      referred_revenue: 0.51,
      referred_attributions: 3,
      referred_users: 2,
      r1_earnings: [
        { amount: 1.5, currency: 'DAI' },
        { amount: 0.000099, currency: 'USDC' },
      ],
    });
    const trades = await Fuul.getAffiliateStats({ user_identifier: alice.address, conversion_name: 'trade' });
    expect(trades).toMatchObject({ referred_volume: 101, referred_revenue: 1.26, referred_attributions: 2, referred_users: 2 });
    expect(trades.r1_earnings).toEqual([{ amount: 0.123555, currency: 'USDC' }]);
  });

  it('getAffiliatePaidVolumesByLevel: only what terms paid (not the no_terms mint), level 1 only', async () => {
    expect(await Fuul.getAffiliatePaidVolumesByLevel({ user_identifier: alice.address })).toEqual({
      user_identifier: alice.address,
      user_identifier_type: 'evm_address',
      payout_eligible_l1_volume: 121,
      payout_eligible_l2_volume: 0,
      payout_eligible_l3_volume: 0,
      payout_eligible_l4_volume: 0,
      payout_eligible_l1_revenue: 1.26,
      payout_eligible_l2_revenue: 0,
      payout_eligible_l3_revenue: 0,
      payout_eligible_l4_revenue: 0,
      payout_eligible_l1_attributions: 3,
      payout_eligible_l2_attributions: 0,
      payout_eligible_l3_attributions: 0,
      payout_eligible_l4_attributions: 0,
      payout_eligible_total_volume: 121,
      payout_eligible_total_revenue: 1.26,
      payout_eligible_total_attributions: 3,
    });
    const november = await Fuul.getAffiliatePaidVolumesByLevel({ user_identifier: alice.address, from: '2026-11-01', to: '2026-11-30' });
    expect(november).toMatchObject({ payout_eligible_l1_volume: 20.5, payout_eligible_l1_revenue: 0.01, payout_eligible_l1_attributions: 2 });
  });

  it('getAffiliateNewTraders: the users whose first conversion with it falls in the range', async () => {
    const count = async (params: { from?: string; to?: string }) =>
      (await Fuul.getAffiliateNewTraders({ user_identifier: alice.address, ...params }))[0]!.total_new_traders;
    expect(await Fuul.getAffiliateNewTraders({ user_identifier: alice.address })).toEqual([
      { referrer_identifier: alice.address, total_new_traders: '2' },
    ]);
    expect(await count({ from: '2026-10-31', to: '2026-10-31' })).toBe('1');
    // u1 traded again in November, but first traded in October: only u2 is new.
    expect(await count({ from: '2026-11-01' })).toBe('1');
    expect(await count({ from: '2026-11-03' })).toBe('0');
  });

  it('getReferralTree: the affiliate and its referred users, one level deep, highest volume first', async () => {
    expect(await Fuul.getReferralTree({ user_identifier: alice.address })).toEqual({
      user_identifier: alice.address,
      project_affiliate_id: aliceId,
      traders: 2,
      total_volume: 128.25,
      total_revenue: 1.76,
      children: [
        {
          user_identifier: u1.identifier.toLowerCase(),
          project_affiliate_id: null,
          traders: 0,
          total_volume: 120.5,
          total_revenue: 1.25,
          children: [],
        },
        {
          user_identifier: u2.identifier.toLowerCase(),
          project_affiliate_id: null,
          traders: 0,
          total_volume: 7.75,
          total_revenue: 0.51,
          children: [],
        },
      ],
    });
  });

  const zeroBucket = (date: string) => ({
    date,
    r1_volume: 0,
    r2_volume: 0,
    r3_volume: 0,
    revenue: 0,
    attributions: 0,
    referred_users: 0,
    earnings: 0,
    earnings_currency: 'DAI',
  });

  it('getStatsBreakdown: calendar months, split at the last and first millisecond of a month, in the currency asked', async () => {
    const byMonth = await Fuul.getStatsBreakdown({ user_identifier: alice.address, group_by: 'month', from: '2026-10-15', to: '2026-11-24' });
    // Without currency_id: the first of its earnings by name (DAI).
    expect(byMonth.results).toEqual([
      { ...zeroBucket('2026-10-01'), r1_volume: 100.5, revenue: 1.25, attributions: 1, referred_users: 1 },
      { ...zeroBucket('2026-11-01'), r1_volume: 27.75, revenue: 0.51, attributions: 3, referred_users: 2, earnings: 1.5 },
    ]);
    const inUsdc = await Fuul.getStatsBreakdown({
      user_identifier: alice.address,
      group_by: 'month',
      date_range: 'custom',
      from: '2026-10-15',
      to: '2026-11-24',
      currency_id: usdc.id,
    });
    expect(inUsdc.results.map((bucket) => [bucket.date, bucket.earnings, bucket.earnings_currency])).toEqual([
      ['2026-10-01', 0.123456, 'USDC'],
      ['2026-11-01', 0.000099, 'USDC'],
    ]);
  });

  it('getStatsBreakdown: ISO weeks from Monday; a bucket begun before the range holds only the range’s conversions', async () => {
    const byWeek = await Fuul.getStatsBreakdown({ user_identifier: alice.address, group_by: 'week', from: '2026-10-31', to: '2026-11-08' });
    expect(byWeek.results).toEqual([
      { ...zeroBucket('2026-10-26'), r1_volume: 101, revenue: 1.26, attributions: 2, referred_users: 2 },
      { ...zeroBucket('2026-11-02'), r1_volume: 27.25, revenue: 0.5, attributions: 2, referred_users: 2, earnings: 1.5 },
    ]);
    // Month to date (today 2026-11-24): from Sunday 11-01, so the week of 10-26 holds only that Sunday's trade.
    const monthToDate = await Fuul.getStatsBreakdown({ user_identifier: alice.address, group_by: 'week', date_range: 'MTD' });
    expect(monthToDate.results).toEqual([
      { ...zeroBucket('2026-10-26'), r1_volume: 0.5, revenue: 0.01, attributions: 1, referred_users: 1 },
      { ...zeroBucket('2026-11-02'), r1_volume: 27.25, revenue: 0.5, attributions: 2, referred_users: 2, earnings: 1.5 },
      zeroBucket('2026-11-09'),
      zeroBucket('2026-11-16'),
      zeroBucket('2026-11-23'),
    ]);
    const lastWeek = await Fuul.getStatsBreakdown({ user_identifier: alice.address, group_by: 'day', date_range: '7d' });
    expect(lastWeek.results.map((bucket) => bucket.date)).toEqual([
      '2026-11-18',
      '2026-11-19',
      '2026-11-20',
      '2026-11-21',
      '2026-11-22',
      '2026-11-23',
      '2026-11-24',
    ]);
  });

  it('getStatsBreakdown by day is the wallet-session portal’s own daily series (one read)', async () => {
    const days = await Fuul.getStatsBreakdown({ user_identifier: alice.address, group_by: 'day', from: '2026-10-31', to: '2026-11-02' });
    const token = await signIn(stack, alice);
    const portal = await stack.api.get(`/api/v1/projects/${project.id}/affiliate-portal/stats?from=2026-10-31&to=2026-11-02`, { key: token });
    expect(portal.status).toBe(200);
    expect(days.results.map((day) => [day.date, day.r1_volume, day.revenue, day.attributions])).toEqual(
      portal.body.series.map((day: { date: string; volume_usd: string; revenue_usd: string; conversions: number }) => [
        day.date,
        Number(day.volume_usd),
        Number(day.revenue_usd),
        day.conversions,
      ]),
    );
    expect(days.results.map((day) => day.r1_volume)).toEqual([100.5, 0.5, 27.25]);
  });

  it('getAffiliateTotalStats: the project’s affiliates by status, region and their summed figures', async () => {
    expect(await Fuul.getAffiliateTotalStats({})).toEqual({
      total_affiliates: 2,
      active_affiliates: 1,
      suspended_affiliates: 1,
      total_regions: 2,
      total_volume: 128.25,
      total_revenue: 1.76,
      total_attributions: 4,
      total_referred_users: 2,
      total_earnings: [
        { amount: 1.5, currency: 'DAI' },
        { amount: 0.123555, currency: 'USDC' },
      ],
    });
    expect(await Fuul.getAffiliateTotalStats({ statuses: ['Paused'] })).toMatchObject({
      total_affiliates: 1,
      suspended_affiliates: 1,
      total_volume: 0,
    });
    expect(await Fuul.getAffiliateTotalStats({ statuses: ['Active', 'Paused'], regions: ['JP'] })).toMatchObject({
      total_affiliates: 1,
      active_affiliates: 1,
      total_regions: 1,
      total_attributions: 4,
    });
    expect(await Fuul.getAffiliateTotalStats({ statuses: ['Terminated'] })).toMatchObject({ total_affiliates: 0, total_earnings: [] });
  });

  it('answers 400 for bad ranges and parameters, naming the field', async () => {
    const field = async (call: Promise<unknown>) => {
      const { status, body } = await refusal(call);
      expect(status).toBe(400);
      return (body.details as Array<{ field: string }>).map((detail) => detail.field);
    };
    expect(await field(Fuul.getAffiliateStats({ user_identifier: alice.address, from: '2026-11-05', to: '2026-11-01' }))).toEqual(['from']);
    expect(await field(Fuul.getAffiliateStats({ user_identifier: alice.address, from: '2026-13-01' }))).toEqual(['from']);
    expect(await field(Fuul.getAffiliateStats({ user_identifier: alice.address, this_month: true, from: '2026-11-01' }))).toEqual(['this_month']);
    expect(await field(Fuul.getAffiliateStats({ user_identifier: alice.address, conversion_external_id: 7 }))).toEqual(['conversion_external_id']);
    expect(await field(Fuul.getAffiliateNewTraders({ user_identifier: alice.address, from: '2026-11-03', to: '2026-11-02' }))).toEqual(['from']);
    expect(await field(Fuul.getAffiliateStats({ user_identifier: 'not-a-wallet' }))).toEqual(['user_identifier']);
    const breakdown = (params: Record<string, unknown>) => Fuul.getStatsBreakdown({ user_identifier: alice.address, group_by: 'day', ...params });
    expect(await field(breakdown({ from: '2025-01-01', to: '2026-11-01' }))).toEqual(['to']);
    expect(await field(breakdown({ from: '2026-11-02', to: '2026-11-01' }))).toEqual(['from']);
    expect(await field(breakdown({ date_range: 'custom' }))).toEqual(['from']);
    expect(await field(breakdown({ date_range: '7d', from: '2026-11-01' }))).toEqual(['date_range']);
    expect(await field(breakdown({ group_by: 'year' }))).toEqual(['group_by']);
    expect(await field(Fuul.getAffiliateTotalStats({ statuses: ['Retired' as 'Active'] }))).toEqual(['statuses[][0]']);
  });

  it('answers 404: a wallet that is no affiliate, and Fuul’s own bonus programs (NOT_OFFERED, the standard body)', async () => {
    const stranger = randomEvmAddress();
    for (const call of [
      Fuul.getAffiliateStats({ user_identifier: stranger }),
      Fuul.getStatsBreakdown({ user_identifier: stranger, group_by: 'day' }),
      Fuul.getReferralTree({ user_identifier: stranger }),
    ]) {
      expect(await refusal(call)).toMatchObject({ status: 404, body: { code: 'AFFILIATE_NOT_FOUND' } });
    }
    const qualified = await refusal(
      Fuul.getQualifiedUserBonus({ user_identifier: alice.address, from: '2026-11-01', to: '2026-11-30', trigger_refs: 'trade' }),
    );
    const taker = await refusal(Fuul.getHighVolumeTakerBonus({ user_identifier: alice.address, trigger_refs: 'trade', this_month: 'true' }));
    for (const [answer, program] of [
      [qualified, 'qualified-user-bonus'],
      [taker, 'high-volume-taker-bonus'],
    ] as const) {
      expect(answer).toEqual({
        status: 404,
        body: { status: 404, code: 'NOT_OFFERED', message: `${program} is a program of Fuul’s own and is not offered here`, details: [] },
      });
    }
  });
});
