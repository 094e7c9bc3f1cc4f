import { Fuul, UserIdentifierType } from '@fuul/sdk';
import { createSegment, randomEvmAddress, useStackWithProject } from '../helpers/fixtures';
import { refusal, initFuulSdk } from '../helpers/fuul-sdk';
import { serviceClients, type ServiceClients } from '../helpers/rpc';
import { conversionBody, createCurrency, evmUser, putTerms, referredUser, settled } from './claim-fixtures';

const EVM = UserIdentifierType.EvmAddress;

/**
 * Issue 25 §3's payouts queries and incentives through the published @fuul/sdk itself, against the
 * running stack, with exact figures: a user's movements in a date window, its payouts per conversion
 * name, an affiliate's payouts per referred user, and the project's incentives (overall and per tier).
 *
 * One affiliate referred three users. Day 1 (2026-11-21): u1 trades (reward_base 1,000,000, $100.50)
 * and deposits (50,000). Day 3: u2 trades (2,000,000, $40), u1 trades again (500,000, $10). u3 never
 * converts. `trade` pays the user 250 and the affiliate 10% (15% in the Gold tier, which it is not in);
 * `deposit` pays the user 2%, capped at 5,000 a conversion.
 */
describe('the payouts queries and incentives through the @fuul/sdk', () => {
  const { stack, project } = useStackWithProject();
  let clients: ServiceClients;
  let currency: { id: string; address: string };
  let gold: { id: string };
  let affiliate: string;
  let code: string;
  let u1: string;
  let u2: string;
  let u3: string;
  /** u2's trade. */
  let c3: string;

  const convert = async (user: string, name: string, rewardBase: string, volumeUsd?: string) => {
    const body = conversionBody({ name, user: evmUser(user), reward_base: rewardBase, ...(volumeUsd ? { volume_usd: volumeUsd } : {}) });
    const sent = await stack.api.post('/api/v1/conversions', { key: project.keys.service, body });
    expect(sent.status).toBe(202);
    await settled(stack, project, body.id);
    return body.id;
  };

  beforeAll(async () => {
    initFuulSdk(stack, project.keys.service);
    clients = serviceClients(stack);
    currency = await createCurrency(stack, project, { decimals: 6 });
    gold = await createSegment(stack, project, { name: 'Gold Tier', tier_rank: 1 });
    await putTerms(stack, project, 'trade', {
      currency_id: currency.id,
      end_user: { fixed: '250' },
      affiliate: { bps: 1_000 },
      // Referral levels (docs/claims.md#referral-levels): the gold tier replaces the rewards of every level.
      affiliate2: { bps: 500 },
      affiliate4: { fixed: '7' },
      tiers: [{ audience_id: gold.id, affiliate: { bps: 1_500 }, affiliate2: { fixed: '40' } }],
    });
    stack.clock.advance(60_000);
    await putTerms(stack, project, 'deposit', { currency_id: currency.id, end_user: { bps: 200 }, caps: { per_conversion: '5000' } });

    const referral = await referredUser(clients, project);
    affiliate = referral.affiliate.identifier;
    code = referral.code;
    u1 = referral.user.identifier;
    [u2, u3] = [randomEvmAddress(), randomEvmAddress()];
    for (const user of [u2, u3])
      await clients.agency.createReferral({ projectId: project.id, user: { identifier: user, identifierType: 'evm_address' }, code });

    // After the referrals (the stack's clock starts at 2026-11-21T12:00Z).
    stack.clock.set('2026-11-21T13:00:00.000Z');
    await convert(u1, 'trade', '1000000', '100.5');
    await convert(u1, 'deposit', '50000');
    stack.clock.set('2026-11-23T13:00:00.000Z');
    c3 = await convert(u2, 'trade', '2000000', '40');
    await convert(u1, 'trade', '500000', '10');
  });
  afterAll(() => clients.close());

  describe('getUserPayoutMovements', () => {
    const amounts = async (params: { from_date?: string; to_date?: string }) =>
      (await Fuul.getUserPayoutMovements({ user_identifier: u1, identifier_type: EVM, ...params })).results.map((movement) => [
        movement.date,
        movement.conversion_name,
        movement.total_amount,
      ]);
    const day1 = [
      ['2026-11-21T13:00:00.000Z', 'deposit', '1000'],
      ['2026-11-21T13:00:00.000Z', 'trade', '250'],
    ];
    const day3 = [['2026-11-23T13:00:00.000Z', 'trade', '250']];

    it('answers the movements written within from_date..to_date (days in UTC, to_date inclusive)', async () => {
      const all = await amounts({});
      expect(all).toHaveLength(3);
      expect(all[0]).toEqual(day3[0]);
      expect((await amounts({ from_date: '2026-11-23' })).sort()).toEqual(day3);
      expect((await amounts({ to_date: '2026-11-21' })).sort()).toEqual(day1);
      expect((await amounts({ from_date: '2026-11-21', to_date: '2026-11-23' })).sort()).toEqual([...day1, ...day3]);
      expect(await amounts({ from_date: '2026-11-22', to_date: '2026-11-22' })).toEqual([]);
      // An instant is taken as written (to_date inclusive): the day-3 movement is at 13:00.
      expect(await amounts({ from_date: '2026-11-23T13:00:00.001Z' })).toEqual([]);
      expect((await amounts({ to_date: '2026-11-23T13:00:00Z', from_date: '2026-11-23T13:00:00Z' })).sort()).toEqual(day3);
    });

    it('refuses a date that is none and a window that ends before it starts (400, naming the field)', async () => {
      for (const [params, field] of [
        [{ from_date: 'yesterday' }, 'from_date'],
        [{ to_date: '2026-02-30' }, 'to_date'],
        [{ from_date: '2026-11-23', to_date: '2026-11-22' }, 'to_date'],
      ] as const) {
        const refused = await refusal(Fuul.getUserPayoutMovements({ user_identifier: u1, identifier_type: EVM, ...params }));
        expect(refused.status).toBe(400);
        expect(refused.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field })] });
      }
    });
  });

  describe('getUserPayoutsByConversion', () => {
    const byConversion = (user: string, from: string, to: string) =>
      Fuul.getUserPayoutsByConversion({ user_identifier: user, identifier_type: EVM, from, to });
    const sum = (conversion: string, isReferrer: boolean, total: string) => ({
      is_referrer: isReferrer,
      total_amount: total,
      conversion_id: conversion,
      conversion_name: conversion,
      currency_address: currency.address,
      chain_id: '8453',
    });

    it('sums the user’s payouts per conversion name, side and currency within from..to', async () => {
      const all = await byConversion(u1, '2026-11-21', '2026-11-23');
      expect(all).toMatchObject({ total_results: 2, page: 1, page_size: 25 });
      expect(all.results).toEqual([expect.objectContaining(sum('deposit', false, '1000')), expect.objectContaining(sum('trade', false, '500'))]);
      expect((await byConversion(u1, '2026-11-21', '2026-11-21')).results).toEqual([
        expect.objectContaining(sum('deposit', false, '1000')),
        expect.objectContaining(sum('trade', false, '250')),
      ]);
      // The affiliate's side: 10% of 1,000,000 + 2,000,000 + 500,000.
      expect((await byConversion(affiliate, '2026-11-21', '2026-11-23')).results).toEqual([expect.objectContaining(sum('trade', true, '350000'))]);
      expect((await byConversion(affiliate, '2026-11-22', '2026-11-23')).results).toEqual([expect.objectContaining(sum('trade', true, '250000'))]);
    });

    it('answers an empty page for points (the project pays none) and 400 for a window that ends before it starts', async () => {
      expect(await Fuul.getUserPointsByConversion({ user_identifier: u1, identifier_type: EVM, from: '2026-11-21', to: '2026-11-23' })).toEqual({
        results: [],
        total_results: 0,
        page: 1,
        page_size: 25,
      });
      const refused = await refusal(byConversion(u1, '2026-11-23', '2026-11-21'));
      expect(refused).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED', details: [{ field: 'to' }] } });
    });
  });

  describe('getPayoutsByReferrer', () => {
    const byReferrer = (params: { referrer_scope?: 'active' | 'all'; from_date?: string; to_date?: string } = {}) =>
      Fuul.getPayoutsByReferrer({ user_identifier: affiliate, user_identifier_type: EVM, ...params });
    const earning = (amount: number, baseUnits: string) => ({
      currency: { address: currency.address, chainId: '8453' },
      amount,
      amount_base_units: baseUnits,
    });
    const entry = (volume: number, earnings: Array<ReturnType<typeof earning>>, dateJoined: string | null) => ({
      volume,
      direct_eligible_volume: volume,
      indirect_eligible_volume: 0,
      earnings,
      total_commission_earned: earnings,
      date_joined: dateJoined,
      event_referrer_identifier: affiliate,
      user_rebate_rate: dateJoined === null ? null : 0,
      referral_code: code,
      user_identifier_type: 'evm_address',
    });
    const byIdentifier = (entries: Array<[string, unknown]>) =>
      entries.sort(([a], [b]) => (a < b ? -1 : 1)).map(([identifier, figures]) => ({ [identifier]: figures }));
    const DAY1 = '2026-11-21T13:00:00.000Z';
    const DAY3 = '2026-11-23T13:00:00.000Z';

    it('answers per referred user its volume and the affiliate’s earnings, all time by default', async () => {
      expect(await byReferrer()).toEqual(
        byIdentifier([
          [u1, entry(110.5, [earning(0.15, '150000')], DAY1)],
          [u2, entry(40, [earning(0.2, '200000')], DAY3)],
        ]),
      );
    });

    it('narrows the figures to from_date..to_date; date_joined stays all-time; scope all adds the users without figures', async () => {
      expect(await byReferrer({ from_date: '2026-11-21', to_date: '2026-11-21' })).toEqual(
        byIdentifier([[u1, entry(100.5, [earning(0.1, '100000')], DAY1)]]),
      );
      expect(await byReferrer({ from_date: '2026-11-22', to_date: '2026-11-22' })).toEqual([]);
      expect(await byReferrer({ referrer_scope: 'all', from_date: '2026-11-22', to_date: '2026-11-22' })).toEqual(
        byIdentifier([
          [u1, entry(0, [], DAY1)],
          [u2, entry(0, [], DAY3)],
          [u3, entry(0, [], null)],
        ]),
      );
    });

    it('refuses one bound without the other, a bad date and an unknown scope (400, naming the field)', async () => {
      for (const [params, field] of [
        [{ from_date: '2026-11-21' }, 'to_date'],
        [{ to_date: '2026-11-21' }, 'from_date'],
        [{ from_date: '2026-11-21', to_date: '21/11/2026' }, 'to_date'],
        [{ from_date: '2026-11-23', to_date: '2026-11-21' }, 'to_date'],
        [{ referrer_scope: 'some' }, 'referrer_scope'],
      ] as const) {
        const refused = await refusal(byReferrer(params as never));
        expect(refused.status).toBe(400);
        expect(refused.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field })] });
      }
    });

    it('is 404 AFFILIATE_NOT_FOUND for a user who is no affiliate', async () => {
      const refused = await refusal(Fuul.getPayoutsByReferrer({ user_identifier: u1, user_identifier_type: EVM }));
      expect(refused).toMatchObject({ status: 404, body: { code: 'AFFILIATE_NOT_FOUND' } });
    });
  });

  describe('getIncentives, getConversions and getIncentivesByTier', () => {
    const noLevels = {
      affiliate2_amount: null,
      affiliate3_amount: null,
      affiliate4_amount: null,
      affiliate2_amount_percentage: null,
      affiliate3_amount_percentage: null,
      affiliate4_amount_percentage: null,
    };
    const caps = (perConversion: boolean) => ({
      payout_cap_enabled: perConversion,
      enduser_cap_enabled: false,
      wallet_cap_enabled: false,
      dynamic_referral_cap_enabled: false,
    });
    const term = (name: string, fields: Record<string, unknown>) => ({
      id: name,
      scheme: 'pay-per-attribution',
      tier_type: 'audience',
      conversion_id: name,
      type: 'onchain-currency',
      calculation_strategy: 'variable',
      trigger_amount_source: null,
      base_currency: null,
      payout_currency_address: currency.address,
      payout_currency_chain_id: 8453,
      require_affiliate: false,
      require_approval: false,
      max_payout_amount: null,
      end_user_cap_amount: null,
      end_user_cap_window_days: null,
      wallet_cap_amount: null,
      wallet_cap_window_days: null,
      dynamic_referral_cap_multiplier: null,
      ...fields,
    });
    const goldTier = () => ({ id: gold.id, name: 'Gold Tier', slug: 'gold-tier', rank: 1, description: null });

    it('lists the conversion names with their payout terms as the SDK’s Conversion, oldest terms first', async () => {
      const incentives = await Fuul.getIncentives();
      const at = { created_at: expect.any(String), updated_at: expect.any(String) };
      expect(incentives).toEqual([
        {
          id: 'trade',
          external_id: 1,
          name: 'trade',
          slug: 'trade',
          enabled: true,
          triggers: [],
          payout_terms: [
            term('trade', {
              referral_amount: '250',
              referrer4_amount: '7',
              payee_type: 'both',
              payout_groups: [
                {
                  id: 'default',
                  name: 'default',
                  affiliate_amount_percentage: 10,
                  end_user_amount: '250',
                  ...noLevels,
                  affiliate2_amount_percentage: 5,
                  affiliate4_amount: '7',
                  audience: null,
                  project_tier: null,
                  ...caps(false),
                },
                {
                  id: gold.id,
                  name: 'Gold Tier',
                  affiliate_amount_percentage: 15,
                  end_user_amount: '250',
                  ...noLevels,
                  affiliate2_amount: '40',
                  audience: null,
                  project_tier: goldTier(),
                  ...caps(false),
                },
              ],
            }),
          ],
          ...at,
        },
        {
          id: 'deposit',
          external_id: 2,
          name: 'deposit',
          slug: 'deposit',
          enabled: true,
          triggers: [],
          payout_terms: [
            term('deposit', {
              max_payout_amount: '5000',
              payee_type: 'end-user',
              payout_groups: [
                { id: 'default', name: 'default', end_user_amount_percentage: 2, ...noLevels, audience: null, project_tier: null, ...caps(true) },
              ],
            }),
          ],
          ...at,
        },
      ]);
      // The deprecated name, with the parameters it still sends (accepted, not used), reads the same.
      expect(await Fuul.getConversions({ user_identifier: u1, identifier_type: EVM })).toEqual(incentives);
    });

    it('keeps the conversion records under the same path: POST reports one, GET /conversions/{id} reads it back', async () => {
      const body = conversionBody({ name: 'trade', user: evmUser(), reward_base: '100' });
      expect((await stack.api.post('/api/v1/conversions', { key: project.keys.service, body })).status).toBe(202);
      expect(await settled(stack, project, body.id)).toMatchObject({ id: body.id, name: 'trade', status: 'processed' });
    });

    it('answers per tier, then the default bucket, what each conversion name pays there; tier_ids narrows them', async () => {
      const none = { amount: null, currency: null, unit: 'none' };
      const bps = (amount: string) => ({ amount, currency: null, unit: 'bps' });
      const fixed = (amount: string) => ({ amount, currency: currency.address, unit: 'base_units' });
      const terms = (tradeAffiliate: string, levels: Record<string, unknown>) => [
        {
          conversion_name: 'deposit',
          payout_type: 'variable',
          payee_type: 'end-user',
          is_multi_level: false,
          affiliate_rate: none,
          affiliate2_rate: none,
          affiliate3_rate: none,
          affiliate4_rate: none,
          end_user_rate: bps('200'),
        },
        {
          conversion_name: 'trade',
          payout_type: 'variable',
          payee_type: 'both',
          is_multi_level: true,
          affiliate_rate: bps(tradeAffiliate),
          affiliate2_rate: none,
          affiliate3_rate: none,
          affiliate4_rate: none,
          ...levels,
          end_user_rate: { amount: '250', currency: currency.address, unit: 'base_units' },
        },
      ];
      const goldBucket = {
        tier_id: gold.id,
        tier_name: 'Gold Tier',
        tier_description: null,
        tier_slug: 'gold-tier',
        tier_rank: 1,
        payout_terms: terms('1500', { affiliate2_rate: fixed('40') }),
      };
      const defaultBucket = {
        tier_id: null,
        tier_name: null,
        tier_description: null,
        tier_slug: null,
        tier_rank: null,
        payout_terms: terms('1000', { affiliate2_rate: bps('500'), affiliate4_rate: fixed('7') }),
      };
      expect(await Fuul.getIncentivesByTier()).toEqual({ tiers: [goldBucket, defaultBucket] });
      expect(await Fuul.getIncentivesByTier({ tier_ids: ['null'] })).toEqual({ tiers: [defaultBucket] });
      expect(await Fuul.getIncentivesByTier({ tier_ids: [gold.id.toUpperCase()] })).toEqual({ tiers: [goldBucket] });
    });
  });

  it('counts the payouts net of reversals once half of u2’s trade is taken back', async () => {
    const reversed = await stack.api.post(`/api/v1/conversions/${encodeURIComponent(c3)}/reverse`, {
      key: project.keys.service,
      body: { reversal_id: 'refund-c3', reason: 'partial refund', share_bps: 5_000 },
    });
    expect(reversed.status).toBe(201);
    // The affiliate kept 100,000 of u2's 200,000; u2 125 of its 250.
    const affiliateTrade = await Fuul.getUserPayoutsByConversion({
      user_identifier: affiliate,
      identifier_type: EVM,
      from: '2026-11-21',
      to: '2026-11-23',
    });
    expect(affiliateTrade.results.map((result) => [result.conversion_name, result.is_referrer, result.total_amount])).toEqual([
      ['trade', true, '250000'],
    ]);
    const u2Trade = await Fuul.getUserPayoutsByConversion({ user_identifier: u2, identifier_type: EVM, from: '2026-11-23', to: '2026-11-23' });
    expect(u2Trade.results.map((result) => [result.conversion_name, result.is_referrer, result.total_amount])).toEqual([['trade', false, '125']]);
    const referred = await Fuul.getPayoutsByReferrer({
      user_identifier: affiliate,
      user_identifier_type: EVM,
      from_date: '2026-11-23',
      to_date: '2026-11-23',
    });
    expect(referred.find((entry) => u2 in entry)?.[u2]?.earnings).toEqual([
      { currency: { address: currency.address, chainId: '8453' }, amount: 0.1, amount_base_units: '100000' },
    ]);
  });
});
