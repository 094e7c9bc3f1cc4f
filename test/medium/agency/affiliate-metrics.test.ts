import { randomUUID } from 'node:crypto';
import type { AgencyDatabase } from '../../../services/agency/database';
import type { PaidConversionSource } from '../../../services/agency/domain/affiliate-metrics.service';
import { affiliateMetrics, conversionFact } from '../../../services/agency/jobs/affiliate-metrics.consumer';
import { type ConversionFact, type MetricCurrency, metricsOf } from '../../../services/agency/repositories/affiliate-metrics.repository';
import type { AffiliateRecord } from '../../../services/agency/repositories/affiliate-record';
import type { EventPayload, EventType } from '../../../services/platform/events/contracts';
import { type EventConsumer, eventProcessor } from '../../../services/platform/outbox/consumer';
import type { EventJobData } from '../../../services/platform/outbox/event';
import { startAgencyDomain } from '../../helpers/agency-domain';
import { deliverTo, eventNow, useDomainHarness } from '../../helpers/domain';
import { randomEvmAddress } from '../../helpers/evm-addresses';
import { newAffiliate, newProject, newUser } from './program-fixtures';

type Payload = EventPayload<'claim.conversion.processed'>;
type User = { identifier: string; identifierType: string };

const T0 = Date.parse('2026-11-21T12:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const asUser = (user: User) => ({ identifier: user.identifier, identifier_type: user.identifierType as 'evm_address' });
const newCurrency = (name: string): MetricCurrency & { chain_id: string } => ({
  id: randomUUID(),
  chainId: '8453',
  chain_id: '8453',
  address: randomEvmAddress(),
  name,
  decimals: 6,
});

/**
 * The affiliate metrics projection: the claim service's `claim.conversion.processed`
 * events, delivered as the consumer's worker delivers them (once per event id, in any order, maybe
 * again), kept as per-affiliate figures; and its rebuild from the claim service's paid conversions.
 */
describe('affiliate metrics projection (consumer and rebuild, domain)', () => {
  /** What "the claim service" paid, per project: the rebuild's source in this tier. */
  const paid = new Map<string, ConversionFact[]>();
  const currencies = new Map<string, MetricCurrency>();
  const source: PaidConversionSource = {
    page: async (projectId, afterId, limit) => {
      const all = [...(paid.get(projectId) ?? [])].sort((a, b) => (a.conversionId < b.conversionId ? -1 : 1));
      const facts = all.filter((fact) => afterId === null || fact.conversionId > afterId).slice(0, limit);
      const used = facts.flatMap((fact) => (fact.currencyId === null ? [] : [currencies.get(fact.currencyId)!]));
      return { facts, reversals: [], currencies: used, nextAfterId: facts.length === limit ? facts.at(-1)!.conversionId : null };
    },
  };

  const harness = useDomainHarness(() => startAgencyDomain({ paidConversions: source }));

  const consumer = affiliateMetrics as unknown as EventConsumer<AgencyDatabase, EventType>;
  const deliver = (projectId: string, payload: Payload, id?: string) =>
    deliverTo(harness, consumer, eventNow(harness, projectId, 'claim.conversion.processed', payload, id));

  /** A conversion as the claim service pays it and tells it; remembered as paid (for the rebuild). */
  function conversion(
    projectId: string,
    fields: {
      user: User;
      affiliate?: AffiliateRecord | null;
      master?: AffiliateRecord | null;
      name?: string;
      status?: 'processed' | 'no_terms';
      volume?: string | null;
      revenue?: string | null;
      currency?: ReturnType<typeof newCurrency> | null;
      affiliatePayout?: bigint;
      agencyPayout?: bigint;
      minute?: number;
    },
  ): Payload {
    const currency = fields.status === 'no_terms' ? null : (fields.currency ?? null);
    if (currency) currencies.set(currency.id, currency);
    const payouts: Payload['payouts'] = [];
    if (currency) {
      payouts.push({ kind: 'end_user_payout', user: asUser(fields.user), amount: '7' });
      if (fields.affiliate && (fields.affiliatePayout ?? 0n) > 0n)
        payouts.push({ kind: 'affiliate_payout', user: asUser(fields.affiliate.user), amount: String(fields.affiliatePayout) });
      if (fields.master && (fields.agencyPayout ?? 0n) > 0n)
        payouts.push({ kind: 'agency_payout', user: asUser(fields.master.user), amount: String(fields.agencyPayout) });
    }
    const payload: Payload = {
      conversion_id: `conv-${randomUUID()}`,
      name: fields.name ?? 'trade',
      status: fields.status ?? 'processed',
      occurred_at: at(fields.minute ?? 0),
      user: asUser(fields.user),
      affiliate: fields.affiliate ? { id: fields.affiliate.id, user: asUser(fields.affiliate.user) } : null,
      master: fields.master ? { id: fields.master.id, user: asUser(fields.master.user), spread_bps: 250 } : null,
      tier_id: null,
      volume_usd: fields.volume === undefined ? '0' : fields.volume,
      revenue_usd: fields.revenue === undefined ? '0' : fields.revenue,
      currency_id: currency?.id ?? null,
      currency: currency
        ? { id: currency.id, chain_id: currency.chain_id, address: currency.address, name: currency.name, decimals: currency.decimals }
        : null,
      payouts,
    };
    paid.set(projectId, [...(paid.get(projectId) ?? []), conversionFact(payload)]);
    return payload;
  }

  const figures = async (projectId: string, affiliate: AffiliateRecord) => {
    const metrics = (await metricsOf(harness.db, projectId, [affiliate.id])).get(affiliate.id)!;
    const earning = (list: typeof metrics.earnings) => list.map((e) => [e.currency?.name ?? e.currencyId, e.amount.toString()]);
    return {
      volume: metrics.volumeUsd,
      revenue: metrics.revenueUsd,
      conversions: Number(metrics.conversions),
      endUsers: Number(metrics.endUsers),
      convertingUsers: Number(metrics.convertingUsers),
      referredVolume: metrics.referredVolumeUsd,
      earnings: earning(metrics.earnings),
      agencyEarnings: earning(metrics.agencyEarnings),
    };
  };

  /** Every aggregate row of the project, as text, in a fixed order: what two ways of building it must agree on. */
  async function projection(projectId: string): Promise<Record<'metrics' | 'counts' | 'earnings' | 'users' | 'subs', unknown[]>> {
    const read = async (query: string) => (await harness.sql.query(query, [projectId])).rows;
    return {
      metrics: await read(
        'SELECT affiliate_id, volume_usd::text, revenue_usd::text, conversions::text, end_users::text, converting_users::text, referred_volume_usd::text FROM agency.affiliate_metrics WHERE project_id = $1 ORDER BY affiliate_id',
      ),
      counts: await read(
        'SELECT affiliate_id, name, conversions::text FROM agency.affiliate_conversion_counts WHERE project_id = $1 ORDER BY affiliate_id, name',
      ),
      earnings: await read(
        'SELECT affiliate_id, kind, currency_id, amount::text FROM agency.affiliate_earnings WHERE project_id = $1 ORDER BY affiliate_id, kind, currency_id',
      ),
      users: await read(
        'SELECT affiliate_id, identifier, volume_usd::text, revenue_usd::text, conversions::text, first_conversion_at, last_conversion_at FROM agency.referred_user_metrics WHERE project_id = $1 ORDER BY affiliate_id, identifier',
      ),
      subs: await read(
        'SELECT master_id, affiliate_id, volume_usd::text, revenue_usd::text, conversions::text FROM agency.sub_affiliate_metrics WHERE project_id = $1 ORDER BY master_id, affiliate_id',
      ),
    };
  }

  it('gives every new affiliate a row of zeros, created with it', async () => {
    const projectId = newProject();
    const affiliate = await newAffiliate(harness, projectId);
    expect(await figures(projectId, affiliate)).toEqual({
      volume: '0',
      revenue: '0',
      conversions: 0,
      endUsers: 0,
      convertingUsers: 0,
      referredVolume: '0',
      earnings: [],
      agencyEarnings: [],
    });
  });

  it('answers the list’s total from the count kept per status, equal to counting, through creation, suspension and reactivation', async () => {
    const projectId = newProject();
    const [a, b] = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
    await harness.domain.affiliates.suspend(projectId, a.user, 'spam', null);
    await harness.domain.affiliates.suspend(projectId, b.user, 'spam', null);
    await harness.domain.affiliates.reactivate(projectId, b.user, null);
    const page = { page: 1, pageSize: 1, offset: 0 };
    const total = async (status?: 'active' | 'suspended') =>
      (await harness.domain.affiliates.list(projectId, { status }, page, { by: 'volume_usd', order: 'desc' })).total;
    expect([await total(), await total('active'), await total('suspended')]).toEqual([3, 2, 1]);
    const kept = await harness.sql.query('SELECT status, affiliates::int AS n FROM agency.affiliate_counts WHERE project_id = $1 ORDER BY status', [
      projectId,
    ]);
    expect(kept.rows).toEqual([
      { status: 'active', n: 2 },
      { status: 'suspended', n: 1 },
    ]);
  });

  it('sums volume and revenue, counts conversions per name and distinct converting users, and earnings per currency; no_terms counts, unattributed changes nobody', async () => {
    const projectId = newProject();
    const [alice, bob] = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
    const [usdc, dai] = [newCurrency('USDC'), newCurrency('DAI')];
    const [u1, u2, stranger] = [newUser(), newUser(), newUser()];
    const events = [
      conversion(projectId, { user: u1, affiliate: alice, volume: '100.25', revenue: '1.5', currency: usdc, affiliatePayout: 1_000n }),
      conversion(projectId, { user: u1, affiliate: alice, volume: '50', revenue: '0.25', currency: usdc, affiliatePayout: 500n, name: 'swap' }),
      conversion(projectId, {
        user: u2,
        affiliate: alice,
        volume: '10',
        revenue: null,
        currency: dai,
        affiliatePayout: 123_456_789_012_345_678_901n,
      }),
      conversion(projectId, { user: u2, affiliate: alice, volume: '4', revenue: '4', status: 'no_terms', name: 'signup' }),
      conversion(projectId, { user: u2, affiliate: bob, volume: null, revenue: '2', currency: usdc, affiliatePayout: 0n }),
      conversion(projectId, { user: stranger, affiliate: null, volume: '999', revenue: '999', currency: usdc }),
    ];
    for (const event of events) expect(await deliver(projectId, event)).toBe('handled');

    expect(await figures(projectId, alice)).toEqual({
      volume: '164.25',
      revenue: '5.75',
      conversions: 4,
      // Nobody was referred through a code here (the events alone): end users count referrals, not conversions.
      endUsers: 0,
      convertingUsers: 2,
      referredVolume: '0',
      earnings: [
        ['DAI', '123456789012345678901'],
        ['USDC', '1500'],
      ],
      agencyEarnings: [],
    });
    expect(await figures(projectId, bob)).toEqual({
      volume: '0',
      revenue: '2',
      conversions: 1,
      endUsers: 0,
      convertingUsers: 1,
      referredVolume: '0',
      earnings: [],
      agencyEarnings: [],
    });
    const { counts } = await projection(projectId);
    expect(
      counts.filter((row) => (row as { affiliate_id: string }).affiliate_id === alice.id).map((row) => Object.values(row as object).slice(1)),
    ).toEqual([
      ['signup', '1'],
      ['swap', '1'],
      ['trade', '2'],
    ]);
    // The unattributed conversion is kept as a fact (project-wide figures) and changes no affiliate.
    const facts = await harness.sql.query(
      'SELECT count(*)::int AS all, count(affiliate_id)::int AS attributed FROM agency.conversion_facts WHERE project_id = $1',
      [projectId],
    );
    expect(facts.rows[0]).toEqual({ all: 6, attributed: 5 });
  });

  it('counts every user an affiliate referred as an end user, converted or not, once per user, and converting users apart', async () => {
    const projectId = newProject();
    const [alice, bob] = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
    const [u1, u2, u3] = [newUser(), newUser(), newUser()];
    const code = (affiliate: AffiliateRecord) => affiliate.codes[0]!.code;
    for (const user of [u1, u2, u3]) expect((await harness.domain.referrals.refer(projectId, user, code(alice))).created).toBe(true);
    // The same user again (same affiliate: answered unchanged; another: refused) counts nobody twice.
    expect((await harness.domain.referrals.refer(projectId, u1, code(alice))).created).toBe(false);
    await expect(harness.domain.referrals.refer(projectId, u1, code(bob))).rejects.toMatchObject({ code: 'ALREADY_REFERRED' });
    // Concurrent referrals of one user through both: exactly one wins, exactly one end user.
    const contested = newUser();
    const outcomes = await Promise.allSettled([
      harness.domain.referrals.refer(projectId, contested, code(alice)),
      harness.domain.referrals.refer(projectId, contested, code(bob)),
    ]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);

    const usdc = newCurrency('USDC');
    await deliver(projectId, conversion(projectId, { user: u1, affiliate: alice, volume: '10', currency: usdc, affiliatePayout: 1n }));
    await deliver(projectId, conversion(projectId, { user: u1, affiliate: alice, volume: '5', currency: usdc, affiliatePayout: 1n }));
    const contestedWinner = outcomes[0].status === 'fulfilled' ? alice : bob;
    const ends = { [alice.id]: 3 + (contestedWinner === alice ? 1 : 0), [bob.id]: contestedWinner === bob ? 1 : 0 };
    expect(await figures(projectId, alice)).toMatchObject({ conversions: 2, endUsers: ends[alice.id], convertingUsers: 1 });
    expect(await figures(projectId, bob)).toMatchObject({ conversions: 0, endUsers: ends[bob.id], convertingUsers: 0 });

    // The list sorts and reads the same figure.
    const page = await harness.domain.affiliates.list(projectId, {}, { page: 1, pageSize: 10, offset: 0 }, { by: 'end_users', order: 'desc' });
    expect(page.records.map((record) => [record.id, Number(record.metrics.endUsers), Number(record.metrics.convertingUsers)])).toEqual(
      [alice, bob]
        .map((affiliate) => [affiliate.id, ends[affiliate.id], affiliate === alice ? 1 : 0])
        .sort((a, b) => (b[1] as number) - (a[1] as number)),
    );

    // A rebuild counts the referrals themselves: wrong figures come back right, equal to what the referrals built.
    const built = await projection(projectId);
    await harness.sql.query('UPDATE agency.affiliate_metrics SET end_users = 42, converting_users = 42 WHERE project_id = $1', [projectId]);
    await harness.domain.metrics.recompute(projectId);
    expect(await projection(projectId)).toEqual(built);

    // Referrals while a rebuild recomputes: each counted once, before or after the recomputation.
    const more = Array.from({ length: 8 }, () => newUser());
    await Promise.all([harness.domain.metrics.rebuild(projectId), ...more.map((user) => harness.domain.referrals.refer(projectId, user, code(bob)))]);
    expect((await figures(projectId, bob)).endUsers).toBe(ends[bob.id]! + 8);
    const settled = await projection(projectId);
    await harness.domain.metrics.recompute(projectId);
    expect(await projection(projectId)).toEqual(settled);
  });

  it('counts a sub-affiliate’s volume for its master only while bound (frozen per conversion), with the master’s agency earnings', async () => {
    const projectId = newProject();
    const [master, sub, other] = [
      await newAffiliate(harness, projectId),
      await newAffiliate(harness, projectId),
      await newAffiliate(harness, projectId),
    ];
    const usdc = newCurrency('USDC');
    const user = newUser();
    // Bound: the claim service froze the master on these two.
    await deliver(
      projectId,
      conversion(projectId, { user, affiliate: sub, master, volume: '300', revenue: '3', currency: usdc, affiliatePayout: 30n, agencyPayout: 7n }),
    );
    await deliver(
      projectId,
      conversion(projectId, { user, affiliate: sub, master, volume: '200', revenue: '2', currency: usdc, affiliatePayout: 20n, agencyPayout: 5n }),
    );
    // Unbound afterwards: its later conversions name no master.
    await deliver(
      projectId,
      conversion(projectId, { user, affiliate: sub, master: null, volume: '1000', revenue: '10', currency: usdc, affiliatePayout: 100n }),
    );
    // The master's own referral is its own volume, not referred volume.
    await deliver(
      projectId,
      conversion(projectId, { user: newUser(), affiliate: master, volume: '40', revenue: '0', currency: usdc, affiliatePayout: 4n }),
    );
    await deliver(
      projectId,
      conversion(projectId, {
        user: newUser(),
        affiliate: other,
        master,
        volume: '60',
        revenue: '1',
        currency: usdc,
        affiliatePayout: 6n,
        agencyPayout: 1n,
      }),
    );

    expect(await figures(projectId, master)).toEqual({
      volume: '40',
      revenue: '0',
      conversions: 1,
      endUsers: 0,
      convertingUsers: 1,
      referredVolume: '560',
      earnings: [['USDC', '4']],
      agencyEarnings: [['USDC', '13']],
    });
    expect(await figures(projectId, sub)).toMatchObject({
      volume: '1500',
      conversions: 3,
      convertingUsers: 1,
      referredVolume: '0',
      earnings: [['USDC', '150']],
    });
    const { subs } = await projection(projectId);
    expect(subs).toEqual(
      [
        { master_id: master.id, affiliate_id: sub.id, volume_usd: '500', revenue_usd: '5', conversions: '2' },
        { master_id: master.id, affiliate_id: other.id, volume_usd: '60', revenue_usd: '1', conversions: '1' },
      ].sort((a, b) => (a.affiliate_id < b.affiliate_id ? -1 : 1)),
    );
  });

  it('changes nothing when an event is delivered again, or the same conversion comes in another event', async () => {
    const projectId = newProject();
    const alice = await newAffiliate(harness, projectId);
    const usdc = newCurrency('USDC');
    const event = conversion(projectId, { user: newUser(), affiliate: alice, volume: '12.5', revenue: '1', currency: usdc, affiliatePayout: 10n });
    const id = randomUUID();
    expect(await deliver(projectId, event, id)).toBe('handled');
    const before = await projection(projectId);
    expect(await Promise.all([deliver(projectId, event, id), deliver(projectId, event, id)])).toEqual(['duplicate', 'duplicate']);
    // A replay outside processed_events (a new event id, the same conversion): the fact exists, nothing is added.
    expect(await deliver(projectId, event)).toBe('handled');
    expect(await projection(projectId)).toEqual(before);
    expect(await figures(projectId, alice)).toMatchObject({ volume: '12.5', conversions: 1, earnings: [['USDC', '10']] });
  });

  it('answers an affiliate’s totals and daily series from one snapshot: read while conversions are applied, every answer’s day holds its totals', async () => {
    const projectId = newProject();
    const alice = await newAffiliate(harness, projectId);
    const usdc = newCurrency('USDC');
    const events = Array.from({ length: 40 }, () =>
      conversion(projectId, { user: newUser(), affiliate: alice, volume: '1', currency: usdc, affiliatePayout: 10n }),
    );
    const day = new Date(T0);
    const read = () => harness.domain.activity.statsOf(projectId, alice.user, day, day);
    const answers: Array<Awaited<ReturnType<typeof read>>> = [];
    let applying = true;
    const reading = (async () => {
      while (applying) answers.push(await read());
    })();
    for (const event of events) expect(await deliver(projectId, event)).toBe('handled');
    applying = false;
    await reading;

    // Every conversion is on the one day read: the day and the all-time totals must agree in each answer.
    const agree = ({ totals, series }: (typeof answers)[number]) => [Number(totals.conversions), Number(series[0]!.conversions)];
    for (const answer of answers) {
      const [total, ofDay] = agree(answer);
      expect(ofDay).toBe(total);
    }
    // The reads were made mid-stream, at more than one point of it.
    expect(new Set(answers.map((answer) => agree(answer)[0])).size).toBeGreaterThan(1);
    expect(agree(await read())).toEqual([40, 40]);
  });

  it('ends the same whatever order the events arrive in, and a concurrent delivery of them all', async () => {
    const build = async () => {
      const projectId = newProject();
      const [master, sub] = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
      const usdc = newCurrency('USDC');
      const users = [newUser(), newUser(), newUser()];
      const events = users.flatMap((user, index) => [
        conversion(projectId, {
          user,
          affiliate: sub,
          master,
          volume: `${index + 1}.1`,
          revenue: '0.01',
          currency: usdc,
          affiliatePayout: 3n,
          agencyPayout: 1n,
          minute: index,
        }),
        conversion(projectId, {
          user,
          affiliate: sub,
          volume: '2',
          revenue: '0',
          currency: usdc,
          affiliatePayout: 2n,
          minute: 10 - index,
          name: 'swap',
        }),
      ]);
      return { projectId, master, sub, events };
    };
    const summary = async ({ projectId, master, sub }: Awaited<ReturnType<typeof build>>) => ({
      master: await figures(projectId, master),
      sub: await figures(projectId, sub),
      users: (await projection(projectId)).users.map((row) => {
        const { affiliate_id: _affiliate, identifier: _identifier, ...rest } = row as Record<string, unknown>;
        return rest;
      }),
    });
    const inOrder = await build();
    for (const event of inOrder.events) await deliver(inOrder.projectId, event);
    const reversed = await build();
    for (const event of [...reversed.events].reverse()) await deliver(reversed.projectId, event);
    const concurrent = await build();
    await Promise.all(concurrent.events.map((event) => deliver(concurrent.projectId, event)));

    const expected = await summary(inOrder);
    expect(expected.sub).toMatchObject({ volume: '12.3', conversions: 6, convertingUsers: 3, earnings: [['USDC', '15']] });
    expect(expected.master).toMatchObject({ referredVolume: '6.3', agencyEarnings: [['USDC', '3']] });
    expect((await summary(reversed)).master).toEqual(expected.master);
    expect((await summary(reversed)).sub).toEqual(expected.sub);
    expect((await summary(concurrent)).sub).toEqual(expected.sub);
    // First and last conversion moments are the earliest and latest, not the first and last to arrive.
    const firstAndLast = (rows: unknown[]) =>
      rows
        .map((row) => [
          (row as { first_conversion_at: Date }).first_conversion_at.toISOString(),
          (row as { last_conversion_at: Date }).last_conversion_at.toISOString(),
        ])
        .sort();
    expect(firstAndLast((await projection(reversed.projectId)).users)).toEqual(firstAndLast((await projection(inOrder.projectId)).users));
    expect(firstAndLast((await projection(inOrder.projectId)).users)).toEqual([
      [at(0), at(10)],
      [at(1), at(9)],
      [at(2), at(8)],
    ]);
  });

  it('rebuilds to exactly the incremental result, restores lost facts and events never applied, and ignores unknown affiliates', async () => {
    const projectId = newProject();
    const [master, sub, solo] = [
      await newAffiliate(harness, projectId),
      await newAffiliate(harness, projectId),
      await newAffiliate(harness, projectId),
    ];
    const [usdc, dai] = [newCurrency('USDC'), newCurrency('DAI')];
    const events = Array.from({ length: 30 }, (_, index) =>
      conversion(projectId, {
        user: index % 4 === 0 ? newUser() : { identifier: `0x${String(index % 3).repeat(40)}`, identifierType: 'evm_address' },
        affiliate: index % 5 === 0 ? null : index % 2 === 0 ? sub : solo,
        master: index % 2 === 0 && index % 5 !== 0 ? master : null,
        name: ['trade', 'swap', 'signup'][index % 3],
        status: index % 7 === 0 ? 'no_terms' : 'processed',
        volume: `${index}.${index % 10}`,
        revenue: index % 6 === 0 ? null : `0.0${index % 10}`,
        currency: index % 3 === 0 ? dai : usdc,
        affiliatePayout: BigInt(index * 1_000),
        agencyPayout: BigInt(index),
        minute: index,
      }),
    );
    for (const event of events) await deliver(projectId, event);
    const incremental = await projection(projectId);

    await harness.domain.metrics.recompute(projectId);
    expect(await projection(projectId)).toEqual(incremental);

    // Facts lost, aggregates wrong: the rebuild from the claim service brings both back.
    await harness.sql.query('DELETE FROM agency.conversion_facts WHERE project_id = $1 AND conversion_id = ANY($2)', [
      projectId,
      events.slice(0, 10).map((e) => e.conversion_id),
    ]);
    await harness.sql.query('UPDATE agency.affiliate_metrics SET volume_usd = 1, end_users = 42, converting_users = 42 WHERE project_id = $1', [
      projectId,
    ]);
    expect(await harness.domain.metrics.rebuild(projectId)).toEqual({
      listed: 30,
      restored: 10,
      restoredReversals: 0,
      conversions: 30,
      attributed: 24,
    });
    expect(await projection(projectId)).toEqual(incremental);

    // A conversion whose event never came: the rebuild adds it; its late event then changes nothing.
    const late = conversion(projectId, {
      user: newUser(),
      affiliate: sub,
      master,
      volume: '1000',
      revenue: '1',
      currency: usdc,
      affiliatePayout: 5n,
      agencyPayout: 1n,
    });
    const before = await figures(projectId, master);
    await harness.domain.metrics.rebuild(projectId);
    const after = await figures(projectId, master);
    expect(Number(after.referredVolume) - Number(before.referredVolume)).toBe(1000);
    await deliver(projectId, late);
    expect(await figures(projectId, master)).toEqual(after);

    // A rebuild and events at the same time: each event counts once, before or after the recomputation.
    const more = Array.from({ length: 12 }, () =>
      conversion(projectId, { user: newUser(), affiliate: solo, volume: '1', revenue: '1', currency: usdc, affiliatePayout: 1n }),
    );
    const soloBefore = await figures(projectId, solo);
    await Promise.all([harness.domain.metrics.rebuild(projectId), ...more.map((event) => deliver(projectId, event))]);
    expect((await figures(projectId, solo)).conversions).toBe(soloBefore.conversions + 12);
    const settled = await projection(projectId);
    await harness.domain.metrics.recompute(projectId);
    expect(await projection(projectId)).toEqual(settled);

    // Ids this project does not know (another deployment's): the event is ignored, the rebuild leaves them out.
    const ghost = { ...sub, id: randomUUID() };
    expect(await deliver(projectId, conversion(projectId, { user: newUser(), affiliate: ghost, volume: '5', currency: usdc }))).toBe('ignored');
    expect((await harness.domain.metrics.rebuild(projectId)).conversions).toBe(30 + 1 + 12);
  });
  it('applies a batch (set-based) to exactly what the events one by one give, with duplicates in the batch, events already applied and unknown affiliates', async () => {
    // A small seeded generator: the same "random" events for both projects, and the same on every run.
    let seed = 20261122;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const usdc = newCurrency('USDC');
    const eth = newCurrency('ETH');
    const users = [newUser(), newUser(), newUser(), newUser()];
    type Recipe = {
      conversionId: string;
      user: number;
      affiliate: number | null;
      master: number | null;
      name: string;
      volume: string | null;
      revenue: string;
      currency: number | null;
      affiliatePayout: bigint;
      agencyPayout: bigint;
      minute: number;
    };
    const recipes: Recipe[] = Array.from({ length: 60 }, () => {
      const affiliate = random(5) === 0 ? null : random(4);
      return {
        conversionId: `conv-${randomUUID()}`,
        user: random(users.length),
        affiliate,
        master: affiliate !== null && random(2) === 0 ? (affiliate + 1 + random(3)) % 4 : null,
        name: ['trade', 'swap'][random(2)]!,
        volume: random(6) === 0 ? null : `${random(1000)}.${random(100)}`,
        revenue: `0.${random(1000)}`,
        currency: random(3) === 0 ? null : random(2),
        affiliatePayout: BigInt(random(50)),
        agencyPayout: BigInt(random(20)),
        minute: random(500),
      };
    });
    const build = async () => {
      const projectId = newProject();
      const affiliates: AffiliateRecord[] = [];
      for (let index = 0; index < 4; index++) affiliates.push(await newAffiliate(harness, projectId));
      const payloads = recipes.map((recipe) => ({
        ...conversion(projectId, {
          user: users[recipe.user]!,
          affiliate: recipe.affiliate === null ? null : affiliates[recipe.affiliate]!,
          master: recipe.master === null ? null : affiliates[recipe.master]!,
          name: recipe.name,
          volume: recipe.volume,
          revenue: recipe.revenue,
          currency: recipe.currency === null ? null : [usdc, eth][recipe.currency]!,
          affiliatePayout: recipe.affiliatePayout,
          agencyPayout: recipe.agencyPayout,
          minute: recipe.minute,
        }),
        conversion_id: recipe.conversionId,
      }));
      // Another deployment's affiliate: the event is ignored, on both paths.
      const attributed = payloads.find((payload) => payload.affiliate !== null)!;
      payloads.push({ ...attributed, conversion_id: `conv-${randomUUID()}`, affiliate: { ...attributed.affiliate!, id: randomUUID() } });
      const event = (payload: Payload, id: string): EventJobData => ({
        id,
        type: 'claim.conversion.processed',
        projectId,
        payload,
        createdAt: harness.clock.now().toISOString(),
      });
      const ids = payloads.map(() => randomUUID());
      const applied = payloads.slice(0, 10).map((payload, index) => event(payload, ids[index]!));
      const batch = [
        ...payloads.map((payload, index) => event(payload, ids[index]!)),
        event(payloads[3]!, ids[3]!), // the same event twice in the batch (and applied before)
        event(payloads[20]!, randomUUID()), // the same conversion in another event of the batch
        event(payloads[5]!, randomUUID()), // a conversion applied before, in a new event
      ];
      return { projectId, affiliates, applied, batch };
    };
    const logger = harness.logs.logger('consumer');
    const byOne = await build();
    for (const data of [...byOne.applied, ...byOne.batch]) await deliverTo(harness, consumer, data);
    const together = await build();
    for (const data of together.applied) await deliverTo(harness, consumer, data);
    const before = harness.logs.lines.length;
    await eventProcessor(harness.db, consumer, harness.clock, logger)({ events: together.batch }, {} as never, new AbortController().signal);
    // Applied together, not through the fall-back one by one.
    expect(harness.logs.lines.slice(before).filter((line) => line.includes('could not be applied together'))).toEqual([]);

    const named = async ({ projectId, affiliates }: Awaited<ReturnType<typeof build>>) => {
      const names = new Map(affiliates.map((affiliate, index) => [affiliate.id, `affiliate-${index}`]));
      const rename = (rows: unknown[]) =>
        rows
          .map((row) =>
            Object.fromEntries(
              Object.entries(row as Record<string, unknown>).map(([key, value]) => [
                key,
                typeof value === 'string' && names.has(value) ? names.get(value) : value,
              ]),
            ),
          )
          // Ids differ between the two projects: compare in an order that does not depend on them.
          .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
      const all = await projection(projectId);
      return Object.fromEntries(Object.entries(all).map(([table, rows]) => [table, rename(rows)]));
    };
    const expected = await named(byOne);
    expect((expected.metrics as Array<{ conversions: string }>).some((row) => row.conversions !== '0')).toBe(true);
    expect(await named(together)).toEqual(expected);
    const outcomes = async (projectId: string, events: EventJobData[]) =>
      (
        await harness.sql.query(
          `SELECT outcome, count(*)::int AS n FROM agency.processed_events WHERE consumer = 'agency-affiliate-metrics' AND event_id = ANY($1::uuid[]) GROUP BY outcome ORDER BY outcome`,
          [[...new Set(events.map((event) => event.id))]],
        )
      ).rows;
    expect(await outcomes(together.projectId, together.batch)).toEqual(await outcomes(byOne.projectId, byOne.batch));
    expect(await outcomes(together.projectId, together.batch)).toEqual([
      { outcome: 'handled', n: 62 },
      { outcome: 'ignored', n: 1 },
    ]);
  });
});
