import { randomUUID } from 'node:crypto';
import type { PaidConversionSource } from '../../../services/agency/domain/affiliate-metrics.service';
import { conversionFact, reversalFact } from '../../../services/agency/jobs/affiliate-metrics.consumer';
import {
  type ConversionFact,
  type MetricCurrency,
  metricsOf,
  type ReversalFact,
} from '../../../services/agency/repositories/affiliate-metrics.repository';
import type { AffiliateRecord } from '../../../services/agency/repositories/affiliate-record';
import { AffiliateStatsRepository } from '../../../services/agency/repositories/affiliate-stats.repository';
import type { EventPayload } from '../../../services/platform/events/contracts';
import { eventProcessor } from '../../../services/platform/outbox/consumer';
import { startAgencyDomain } from '../../helpers/agency-domain';
import { eventNow, useDomainHarness } from '../../helpers/domain';
import { randomEvmAddress } from '../../helpers/evm-addresses';
import { payoutShares, reversalEvent } from '../../helpers/conversion-events';
import { metricsConsumer, metricsDelivery } from './metrics-events';
import { newAffiliate, newProject, newUser } from './program-fixtures';

type Processed = EventPayload<'claim.conversion.processed'>;
type Reversed = EventPayload<'claim.conversion.reversed'>;
type User = { identifier: string; identifierType: string };

const asUser = (user: User) => ({ identifier: user.identifier, identifier_type: user.identifierType as 'evm_address' });
const OCCURRED = '2026-11-21T12:00:00.000Z';

/**
 * Reversals in the affiliate metrics: `claim.conversion.reversed` takes its share of the volume,
 * revenue and payouts back out of the conversion's fact and every aggregate (a full reversal takes
 * the conversion out of the counts), once per reversal, whatever the order of arrival; a rebuild
 * from the claim service's paid conversions (each with its reversals) gives the same figures.
 */
describe('affiliate metrics: reversals (consumer and rebuild, domain)', () => {
  const paid = new Map<string, ConversionFact[]>();
  const reversalsOf = new Map<string, ReversalFact[]>();
  const currencies = new Map<string, MetricCurrency>();
  const source: PaidConversionSource = {
    page: async (projectId, afterId, limit) => {
      const all = [...(paid.get(projectId) ?? [])].sort((a, b) => (a.conversionId < b.conversionId ? -1 : 1));
      const facts = all.filter((fact) => afterId === null || fact.conversionId > afterId).slice(0, limit);
      const used = facts.flatMap((fact) => (fact.currencyId === null ? [] : [currencies.get(fact.currencyId)!]));
      const reversals = facts.flatMap((fact) => reversalsOf.get(fact.conversionId) ?? []);
      return { facts, reversals, currencies: used, nextAfterId: facts.length === limit ? facts.at(-1)!.conversionId : null };
    },
  };

  const harness = useDomainHarness(() => startAgencyDomain({ paidConversions: source }));

  const deliver = metricsDelivery(harness);

  const usdc = { id: randomUUID(), chainId: '8453', address: randomEvmAddress(), name: 'USDC', decimals: 6 };
  currencies.set(usdc.id, usdc);

  /** A conversion as the claim service pays it: 1000 to the affiliate, 100 to its master (when bound), 7 to the user. */
  function conversion(
    projectId: string,
    fields: { user: User; affiliate: AffiliateRecord; master?: AffiliateRecord; volume: string; revenue: string },
  ) {
    const payload: Processed = {
      conversion_id: `conv-${randomUUID()}`,
      name: 'trade',
      status: 'processed',
      occurred_at: OCCURRED,
      user: asUser(fields.user),
      affiliate: { id: fields.affiliate.id, user: asUser(fields.affiliate.user) },
      master: fields.master ? { id: fields.master.id, user: asUser(fields.master.user), spread_bps: 1000 } : null,
      tier_id: null,
      volume_usd: fields.volume,
      revenue_usd: fields.revenue,
      currency_id: usdc.id,
      currency: { id: usdc.id, chain_id: usdc.chainId, address: usdc.address, name: usdc.name, decimals: usdc.decimals },
      payouts: [
        { kind: 'end_user_payout', user: asUser(fields.user), amount: '7' },
        { kind: 'affiliate_payout', user: asUser(fields.affiliate.user), amount: '1000' },
        ...(fields.master ? [{ kind: 'agency_payout' as const, user: asUser(fields.master.user), amount: '100' }] : []),
      ],
    };
    paid.set(projectId, [...(paid.get(projectId) ?? []), conversionFact(payload)]);
    return payload;
  }

  /** A reversal as the claim service tells it: the share of the figures given, floor(amount × share / 10000) of each payout, leaving out a share that rounds to nothing. */
  function reversal(converted: Processed, shareBps: number, figures: { volume: string; revenue: string }): Reversed {
    const shares = payoutShares(converted, shareBps).filter((share) => share.amount !== '0');
    const payload = reversalEvent(converted, shareBps, figures, shares);
    reversalsOf.set(converted.conversion_id, [...(reversalsOf.get(converted.conversion_id) ?? []), reversalFact(payload)]);
    return payload;
  }

  const figures = async (projectId: string, affiliate: AffiliateRecord) => {
    const metrics = (await metricsOf(harness.db, projectId, [affiliate.id])).get(affiliate.id)!;
    return {
      volume: metrics.volumeUsd,
      revenue: metrics.revenueUsd,
      conversions: Number(metrics.conversions),
      convertingUsers: Number(metrics.convertingUsers),
      referredVolume: metrics.referredVolumeUsd,
      earnings: metrics.earnings.map((e) => e.amount.toString()),
      agencyEarnings: metrics.agencyEarnings.map((e) => e.amount.toString()),
    };
  };

  /** Every row of the projection (facts and aggregates) as text, in a fixed order. */
  async function projection(projectId: string): Promise<Record<string, unknown[]>> {
    const read = async (query: string) => (await harness.sql.query(query, [projectId])).rows;
    return {
      facts: await read(
        'SELECT conversion_id, volume_usd::text, revenue_usd::text, affiliate_payout::text, agency_payout::text, reversed_bps FROM agency.conversion_facts WHERE project_id = $1 ORDER BY conversion_id',
      ),
      metrics: await read(
        'SELECT affiliate_id, volume_usd::text, revenue_usd::text, conversions::text, converting_users::text, referred_volume_usd::text FROM agency.affiliate_metrics WHERE project_id = $1 ORDER BY affiliate_id',
      ),
      counts: await read(
        'SELECT affiliate_id, name, conversions::text FROM agency.affiliate_conversion_counts WHERE project_id = $1 ORDER BY affiliate_id, name',
      ),
      earnings: await read(
        'SELECT affiliate_id, kind, amount::text FROM agency.affiliate_earnings WHERE project_id = $1 ORDER BY affiliate_id, kind',
      ),
      users: await read(
        'SELECT affiliate_id, identifier, volume_usd::text, revenue_usd::text, conversions::text FROM agency.referred_user_metrics WHERE project_id = $1 ORDER BY affiliate_id, identifier',
      ),
      subs: await read(
        'SELECT master_id, affiliate_id, volume_usd::text, revenue_usd::text, conversions::text FROM agency.sub_affiliate_metrics WHERE project_id = $1 ORDER BY master_id, affiliate_id',
      ),
    };
  }

  it('takes a partial reversal’s share out of the affiliate’s and its master’s figures and earnings; the conversion still counts', async () => {
    const projectId = newProject();
    const [master, sub] = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
    const converted = conversion(projectId, { user: newUser(), affiliate: sub, master, volume: '100', revenue: '10.5' });
    await deliver(projectId, 'claim.conversion.processed', converted);
    expect(await deliver(projectId, 'claim.conversion.reversed', reversal(converted, 2_500, { volume: '25', revenue: '2.625' }))).toBe('handled');

    expect(await figures(projectId, sub)).toEqual({
      volume: '75',
      revenue: '7.875',
      conversions: 1,
      convertingUsers: 1,
      referredVolume: '0',
      earnings: ['750'],
      agencyEarnings: [],
    });
    expect(await figures(projectId, master)).toMatchObject({ volume: '0', referredVolume: '75', agencyEarnings: ['75'] });
    expect((await projection(projectId)).subs).toEqual([
      { master_id: master.id, affiliate_id: sub.id, volume_usd: '75', revenue_usd: '7.875', conversions: '1' },
    ]);
  });

  it('counts a rebated conversion’s affiliate earnings net of the user’s rebate, and a reversal takes back only the affiliate’s own part', async () => {
    const projectId = newProject();
    const affiliate = await newAffiliate(harness, projectId);
    const user = newUser();
    // As the claim service tells it (docs/claims.md#rebates): 15% of the affiliate's 1000 went to the user, marked rebate.
    const converted: Processed = {
      ...conversion(projectId, { user, affiliate, volume: '100', revenue: '10' }),
      payouts: [
        { kind: 'affiliate_payout', user: asUser(affiliate.user), amount: '850' },
        { kind: 'end_user_payout', user: asUser(user), amount: '150', rebate: true },
      ],
    };
    expect(await deliver(projectId, 'claim.conversion.processed', converted)).toBe('handled');
    expect((await figures(projectId, affiliate)).earnings).toEqual(['850']);
    expect(await deliver(projectId, 'claim.conversion.reversed', reversal(converted, 5_000, { volume: '50', revenue: '5' }))).toBe('handled');
    // Half of 850 back from the affiliate; the rebate's 75 was the user's.
    expect((await figures(projectId, affiliate)).earnings).toEqual(['425']);
  });

  it('takes a conversion reversed in full (in two parts) out of every count, its user out of the converting users, and figures to zero', async () => {
    const projectId = newProject();
    const [master, sub] = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
    const [u1, u2] = [newUser(), newUser()];
    const first = conversion(projectId, { user: u1, affiliate: sub, master, volume: '100', revenue: '10' });
    const other = conversion(projectId, { user: u2, affiliate: sub, master, volume: '3', revenue: '1' });
    await deliver(projectId, 'claim.conversion.processed', first);
    await deliver(projectId, 'claim.conversion.processed', other);
    await deliver(projectId, 'claim.conversion.reversed', reversal(first, 4_000, { volume: '40', revenue: '4' }));
    expect(await figures(projectId, sub)).toMatchObject({ conversions: 2, convertingUsers: 2 });
    await deliver(projectId, 'claim.conversion.reversed', reversal(first, 6_000, { volume: '60', revenue: '6' }));

    expect(await figures(projectId, sub)).toEqual({
      volume: '3',
      revenue: '1',
      conversions: 1,
      convertingUsers: 1,
      referredVolume: '0',
      earnings: ['1000'],
      agencyEarnings: [],
    });
    expect(await figures(projectId, master)).toMatchObject({ referredVolume: '3', agencyEarnings: ['100'] });
    const rows = await projection(projectId);
    expect(rows.counts).toEqual([{ affiliate_id: sub.id, name: 'trade', conversions: '1' }]);
    expect(rows.subs).toEqual([{ master_id: master.id, affiliate_id: sub.id, volume_usd: '3', revenue_usd: '1', conversions: '1' }]);
    expect(rows.facts).toContainEqual({
      conversion_id: first.conversion_id,
      volume_usd: '0',
      revenue_usd: '0',
      affiliate_payout: '0',
      agency_payout: '0',
      reversed_bps: 10_000,
    });

    // The same user converts again: a converting user once more.
    await deliver(projectId, 'claim.conversion.processed', conversion(projectId, { user: u1, affiliate: sub, volume: '5', revenue: '0' }));
    expect(await figures(projectId, sub)).toMatchObject({ volume: '8', conversions: 2, convertingUsers: 2 });
    // The portal's day reads the net facts: the fully reversed conversion counts for nothing.
    const [day] = await new AffiliateStatsRepository(harness.db).daily(projectId, sub.id, { from: new Date('2026-11-21T00:00:00.000Z'), days: 1 });
    expect(day).toMatchObject({ volumeUsd: '8', revenueUsd: '1', conversions: 2n, earnings: [expect.objectContaining({ amount: 2000n })] });
    const [masterDay] = await new AffiliateStatsRepository(harness.db).daily(projectId, master.id, {
      from: new Date('2026-11-21T00:00:00.000Z'),
      days: 1,
    });
    expect(masterDay).toMatchObject({ referredVolumeUsd: '3', agencyEarnings: [expect.objectContaining({ amount: 100n })] });
    const incremental = await projection(projectId);
    await harness.domain.metrics.recompute(projectId);
    expect(await projection(projectId)).toEqual(incremental);
  });

  it('changes nothing when a reversal is delivered again, under the same event id or another', async () => {
    const projectId = newProject();
    const sub = await newAffiliate(harness, projectId);
    const converted = conversion(projectId, { user: newUser(), affiliate: sub, volume: '10', revenue: '1' });
    await deliver(projectId, 'claim.conversion.processed', converted);
    const reversed = reversal(converted, 5_000, { volume: '5', revenue: '0.5' });
    const id = randomUUID();
    expect(await deliver(projectId, 'claim.conversion.reversed', reversed, id)).toBe('handled');
    const once = await projection(projectId);
    expect(
      await Promise.all([
        deliver(projectId, 'claim.conversion.reversed', reversed, id),
        deliver(projectId, 'claim.conversion.reversed', reversed, id),
      ]),
    ).toEqual(['duplicate', 'duplicate']);
    // Another event carrying the same reversal (its id is the reversal's): recorded once, nothing taken twice.
    expect(await deliver(projectId, 'claim.conversion.reversed', reversed)).toBe('handled');
    expect(await projection(projectId)).toEqual(once);
    expect(await figures(projectId, sub)).toMatchObject({ volume: '5', revenue: '0.5', earnings: ['500'] });
  });

  it('waits for the conversion: a reversal arriving first fails (retried), and applies once the conversion is there; unknown affiliates are ignored', async () => {
    const projectId = newProject();
    const sub = await newAffiliate(harness, projectId);
    const converted = conversion(projectId, { user: newUser(), affiliate: sub, volume: '10', revenue: '1' });
    const reversed = reversal(converted, 10_000, { volume: '10', revenue: '1' });
    const id = randomUUID();
    await expect(deliver(projectId, 'claim.conversion.reversed', reversed, id)).rejects.toThrow(/waits for its claim.conversion.processed/);
    expect(await figures(projectId, sub)).toMatchObject({ volume: '0', conversions: 0 });
    await deliver(projectId, 'claim.conversion.processed', converted);
    expect(await deliver(projectId, 'claim.conversion.reversed', reversed, id)).toBe('handled');
    expect(await figures(projectId, sub)).toMatchObject({ volume: '0', revenue: '0', conversions: 0, convertingUsers: 0, earnings: [] });

    const ghost = { ...sub, id: randomUUID() };
    const ghostConversion = conversion(projectId, { user: newUser(), affiliate: ghost, volume: '1', revenue: '1' });
    expect(await deliver(projectId, 'claim.conversion.processed', ghostConversion)).toBe('ignored');
    expect(await deliver(projectId, 'claim.conversion.reversed', reversal(ghostConversion, 10_000, { volume: '1', revenue: '1' }))).toBe('ignored');
    paid.set(
      projectId,
      (paid.get(projectId) ?? []).filter((fact) => fact.affiliateId !== ghost.id),
    );
  });

  it('refuses a reversal that would take more than the conversion brought, changing nothing', async () => {
    const projectId = newProject();
    const sub = await newAffiliate(harness, projectId);
    const converted = conversion(projectId, { user: newUser(), affiliate: sub, volume: '10', revenue: '1' });
    await deliver(projectId, 'claim.conversion.processed', converted);
    const before = await projection(projectId);
    const tooMuch = { ...reversal(converted, 5_000, { volume: '5', revenue: '0.5' }), volume_usd: '11' };
    reversalsOf.delete(converted.conversion_id);
    await expect(deliver(projectId, 'claim.conversion.reversed', tooMuch)).rejects.toThrow(/check constraint/);
    expect(await projection(projectId)).toEqual(before);
  });

  it('applies reversals racing a batch of conversions of the same affiliates (shared rows) exactly once each, without deadlock', async () => {
    const projectId = newProject();
    const [master, sub] = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
    const users = [newUser(), newUser()];
    const make = (index: number) => conversion(projectId, { user: users[index % 2]!, affiliate: sub, master, volume: '10', revenue: '1' });
    const earlier = Array.from({ length: 10 }, (_, index) => make(index));
    for (const converted of earlier) await deliver(projectId, 'claim.conversion.processed', converted);
    const later = Array.from({ length: 10 }, (_, index) => make(index));
    const batch = later.map((converted) => eventNow(harness, projectId, 'claim.conversion.processed', converted));
    const processor = eventProcessor(harness.db, metricsConsumer, harness.clock, harness.logs.logger('consumer'));
    await Promise.all([
      processor({ events: batch }, {} as never, new AbortController().signal),
      ...earlier.map((converted, index) =>
        deliver(
          projectId,
          'claim.conversion.reversed',
          reversal(converted, index % 2 === 0 ? 10_000 : 5_000, index % 2 === 0 ? { volume: '10', revenue: '1' } : { volume: '5.0', revenue: '0.5' }),
        ),
      ),
    ]);
    // 20 conversions of 10 = 200, less 5 full (50) and 5 halves (25); 5 of them no longer count.
    expect(await figures(projectId, sub)).toMatchObject({ volume: '125.0', conversions: 15, convertingUsers: 2, earnings: ['12500'] });
    expect(await figures(projectId, master)).toMatchObject({ referredVolume: '125.0', agencyEarnings: ['1250'] });
    const settled = await projection(projectId);
    await harness.domain.metrics.recompute(projectId);
    expect(await projection(projectId)).toEqual(settled);
  });

  it('rebuilds to exactly the incremental figures after reversals, restores reversals whose events were lost, and their late events add nothing', async () => {
    const projectId = newProject();
    const [master, sub, solo] = [
      await newAffiliate(harness, projectId),
      await newAffiliate(harness, projectId),
      await newAffiliate(harness, projectId),
    ];
    const users = [newUser(), newUser(), newUser()];
    const conversions = Array.from({ length: 9 }, (_, index) =>
      conversion(projectId, {
        user: users[index % 3]!,
        affiliate: index % 2 === 0 ? sub : solo,
        ...(index % 2 === 0 ? { master } : {}),
        volume: `${index + 1}0`,
        revenue: `${index + 1}`,
      }),
    );
    for (const converted of conversions) await deliver(projectId, 'claim.conversion.processed', converted);
    // Partial, full in one, full in two parts: shares of volumes of n0 and revenues of n are exact.
    const reversals = [
      reversal(conversions[0]!, 2_500, { volume: '2.5', revenue: '0.25' }),
      reversal(conversions[1]!, 10_000, { volume: '20', revenue: '2' }),
      reversal(conversions[2]!, 5_000, { volume: '15', revenue: '1.5' }),
      reversal(conversions[2]!, 5_000, { volume: '15', revenue: '1.5' }),
      reversal(conversions[3]!, 10_000, { volume: '40', revenue: '4' }),
      reversal(conversions[4]!, 1, { volume: '0.005', revenue: '0.0005' }),
    ];
    for (const reversed of reversals) await deliver(projectId, 'claim.conversion.reversed', reversed);
    const incremental = await projection(projectId);
    expect(await figures(projectId, sub)).toMatchObject({ volume: '217.495', conversions: 4 });

    await harness.domain.metrics.recompute(projectId);
    expect(await projection(projectId)).toEqual(incremental);

    // Everything lost (facts, reversals, aggregates wrong): the rebuild brings it back, reversals netted.
    await harness.sql.query('DELETE FROM agency.conversion_fact_reversals WHERE project_id = $1', [projectId]);
    await harness.sql.query('DELETE FROM agency.conversion_facts WHERE project_id = $1', [projectId]);
    await harness.sql.query('UPDATE agency.affiliate_metrics SET volume_usd = 1, conversions = 42, converting_users = 42 WHERE project_id = $1', [
      projectId,
    ]);
    expect(await harness.domain.metrics.rebuild(projectId)).toEqual({ listed: 9, restored: 9, restoredReversals: 6, conversions: 9, attributed: 9 });
    expect(await projection(projectId)).toEqual(incremental);

    // A reversal whose event never came: the rebuild applies it; its late event then changes nothing.
    const late = reversal(conversions[5]!, 10_000, { volume: '60', revenue: '6' });
    const soloBefore = await figures(projectId, solo);
    expect((await harness.domain.metrics.rebuild(projectId)).restoredReversals).toBe(1);
    const rebuilt = await projection(projectId);
    expect(await figures(projectId, solo)).toMatchObject({ volume: String(Number(soloBefore.volume) - 60), conversions: soloBefore.conversions - 1 });
    expect(await deliver(projectId, 'claim.conversion.reversed', late)).toBe('handled');
    expect(await projection(projectId)).toEqual(rebuilt);

    // Reversals and a rebuild at the same time: each applied once.
    const more = [
      reversal(conversions[6]!, 3_000, { volume: '21', revenue: '2.1' }),
      reversal(conversions[7]!, 10_000, { volume: '80', revenue: '8' }),
    ];
    await Promise.all([
      harness.domain.metrics.rebuild(projectId),
      ...more.map((reversed) => deliver(projectId, 'claim.conversion.reversed', reversed)),
    ]);
    const settled = await projection(projectId);
    await harness.domain.metrics.recompute(projectId);
    expect(await projection(projectId)).toEqual(settled);
    expect(await figures(projectId, sub)).toMatchObject({ volume: '196.495', conversions: 4 });
  });
});
