import { randomUUID } from 'node:crypto';
import type { AudienceDatabase } from '../../../services/audience/database';
import { conditionInputs } from '../../../services/audience/jobs/condition-inputs.consumer';
import type { EventPayload, EventType } from '../../../services/platform/events/contracts';
import { type EventConsumer, eventProcessor } from '../../../services/platform/outbox/consumer';
import type { EventJobData } from '../../../services/platform/outbox/event';
import { deliverTo, eventNow, useDomainHarness } from '../../helpers/domain';
import { startAudienceDomain } from '../../helpers/audience-domain';
import { randomEvmAddress } from '../../helpers/evm-addresses';

type Conversion = EventPayload<'claim.conversion.processed'>;
type Wire = { identifier: string; identifier_type: 'evm_address' };

const wire = (identifier: string): Wire => ({ identifier, identifier_type: 'evm_address' });

/**
 * The audience's projection of claim.conversion.processed and agency.referral.created into what
 * conditions read (migration 0004), delivered as the consumer's worker delivers them:
 * one by one or many in one job, maybe again.
 */
describe('condition inputs projection (consumer, domain)', () => {
  const harness = useDomainHarness(() => startAudienceDomain());

  const consumer = conditionInputs as unknown as EventConsumer<AudienceDatabase, EventType>;
  const job = (projectId: string, type: EventType, payload: unknown, id?: string) =>
    eventNow(harness, projectId, type, payload as EventPayload<EventType>, id);
  const deliver = (data: EventJobData) => deliverTo(harness, consumer, data);
  const deliverBatch = (events: EventJobData[]) =>
    eventProcessor(harness.db, consumer, harness.clock, harness.logs.logger('consumer'))({ events }, {} as never, new AbortController().signal);

  const conversionJob = (projectId: string, fields: Parameters<typeof conversion>[0]) =>
    job(projectId, 'claim.conversion.processed', conversion(fields));
  function conversion(fields: {
    user: string;
    name?: string;
    occurredAt?: string;
    volume?: string | null;
    revenue?: string | null;
    affiliate?: string | null;
    currencyId?: string | null;
    payouts?: Array<[Conversion['payouts'][number]['kind'], string, string]>;
  }): Conversion {
    const currencyId = fields.currencyId ?? null;
    return {
      conversion_id: `conv-${randomUUID()}`,
      name: fields.name ?? 'trade',
      status: 'processed',
      occurred_at: fields.occurredAt ?? '2026-11-21T12:00:00.000Z',
      user: wire(fields.user),
      affiliate: fields.affiliate ? { id: randomUUID(), user: wire(fields.affiliate) } : null,
      master: null,
      tier_id: null,
      volume_usd: fields.volume === undefined ? '0' : fields.volume,
      revenue_usd: fields.revenue === undefined ? '0' : fields.revenue,
      currency_id: currencyId,
      payouts: (fields.payouts ?? []).map(([kind, user, amount]) => ({ kind, user: wire(user), amount })),
    };
  }
  const referral = (projectId: string, referrer: string, referredAt = '2026-11-21T12:00:00.000Z') => ({
    project_id: projectId,
    user: wire(randomEvmAddress()),
    affiliate: { id: randomUUID(), user: wire(referrer) },
    referred_at: referredAt,
  });

  /** Every row of the projection for a project, as text, in a fixed order. */
  async function projection(projectId: string) {
    const read = async (query: string) => (await harness.sql.query(query, [projectId])).rows;
    return {
      metrics: await read(
        `SELECT identifier, volume_usd::text, revenue_usd::text, conversions::int, referred_users::int, referred_volume_usd::text
         FROM audience.user_metrics WHERE project_id = $1 ORDER BY identifier`,
      ),
      conversionDays: await read(
        `SELECT identifier, name, day::text, conversions::int, volume_usd::text, revenue_usd::text
         FROM audience.user_conversion_days WHERE project_id = $1 ORDER BY identifier, name, day`,
      ),
      referralDays: await read(
        `SELECT identifier, day::text, referred_users::int, referred_volume_usd::text FROM audience.user_referral_days WHERE project_id = $1 ORDER BY identifier, day`,
      ),
      earningDays: await read(
        `SELECT identifier, currency_id, day::text, amount::text FROM audience.user_earning_days WHERE project_id = $1 ORDER BY identifier, currency_id, day`,
      ),
    };
  }

  it('adds a conversion to its user, its frozen affiliate’s referred volume, and every beneficiary’s earnings, exactly', async () => {
    const projectId = randomUUID();
    const [user, affiliate, master] = [randomEvmAddress(), randomEvmAddress(), randomEvmAddress()].sort();
    const usdc = randomUUID();
    const big = '1000000000000000000000000000001';
    await deliver(
      conversionJob(projectId, {
        user: user!,
        affiliate: affiliate!,
        volume: '0.1',
        revenue: '0.01',
        currencyId: usdc,
        payouts: [
          ['end_user_payout', user!, '7'],
          ['affiliate_payout', affiliate!, big],
          ['agency_payout', master!, '3'],
        ],
      }),
    );
    await deliver(
      conversionJob(projectId, {
        user: user!,
        affiliate: affiliate!,
        volume: '0.2',
        revenue: null,
        currencyId: usdc,
        payouts: [['affiliate_payout', affiliate!, big]],
      }),
    );
    await deliver(conversionJob(projectId, { user: user!, name: 'deposit', volume: null, occurredAt: '2026-11-22T00:00:00.000Z' }));

    expect(await projection(projectId)).toEqual({
      metrics: [
        { identifier: user, volume_usd: '0.3', revenue_usd: '0.01', conversions: 3, referred_users: 0, referred_volume_usd: '0' },
        { identifier: affiliate, volume_usd: '0', revenue_usd: '0', conversions: 0, referred_users: 0, referred_volume_usd: '0.3' },
      ].sort((a, b) => a.identifier!.localeCompare(b.identifier!)),
      conversionDays: [
        { identifier: user, name: 'deposit', day: '2026-11-22', conversions: 1, volume_usd: '0', revenue_usd: '0' },
        { identifier: user, name: 'trade', day: '2026-11-21', conversions: 2, volume_usd: '0.3', revenue_usd: '0.01' },
      ],
      referralDays: [{ identifier: affiliate, day: '2026-11-21', referred_users: 0, referred_volume_usd: '0.3' }],
      earningDays: [
        { identifier: user, currency_id: usdc, day: '2026-11-21', amount: '7' },
        { identifier: affiliate, currency_id: usdc, day: '2026-11-21', amount: '2000000000000000000000000000002' },
        { identifier: master, currency_id: usdc, day: '2026-11-21', amount: '3' },
      ].sort((a, b) => a.identifier!.localeCompare(b.identifier!)),
    });
  });

  it('changes nothing when an event is delivered again, alone or inside a batch', async () => {
    const projectId = randomUUID();
    const user = randomEvmAddress();
    const referrer = randomEvmAddress();
    const first = conversionJob(projectId, {
      user,
      affiliate: referrer,
      volume: '12.5',
      currencyId: randomUUID(),
      payouts: [['end_user_payout', user, '5']],
    });
    const referred = job(projectId, 'agency.referral.created', referral(projectId, referrer));
    expect(await deliver(first)).toBe('handled');
    expect(await deliver(referred)).toBe('handled');
    const once = await projection(projectId);
    expect(await deliver(first)).toBe('duplicate');
    expect(await deliver(referred)).toBe('duplicate');
    await deliverBatch([first, first, job(projectId, 'claim.conversion.processed', first.payload, first.id)]);
    expect(await projection(projectId)).toEqual(once);
    expect(once.metrics.find((row) => row.identifier === referrer)).toMatchObject({ referred_users: 1, referred_volume_usd: '12.5' });
  });

  it('a batch ends where the same events delivered one by one end, in any order and across projects', async () => {
    const [projectA, projectB] = [randomUUID(), randomUUID()];
    const users = Array.from({ length: 6 }, () => randomEvmAddress());
    const currency = randomUUID();
    const payloads = (projectId: string) =>
      Array.from({ length: 60 }, (_, i) =>
        conversionJob(projectId, {
          user: users[i % 6]!,
          affiliate: users[(i + 1) % 6]!,
          name: i % 3 === 0 ? 'deposit' : 'trade',
          occurredAt: new Date(Date.parse('2026-11-20T22:00:00.000Z') + i * 7 * 60_000).toISOString(),
          volume: `${i}.${String(i).padStart(2, '0')}`,
          revenue: `0.00${i}`,
          currencyId: currency,
          payouts: [['affiliate_payout', users[(i + 1) % 6]!, String(10n ** 20n + BigInt(i))]],
        }),
      );
    const one = payloads(projectA);
    for (const data of [...one].reverse()) await deliver(data);
    const together = payloads(projectB).map((data) => ({ ...data, payload: { ...(data.payload as Conversion) } }));
    // Same facts, other project: a batch that also holds events of the first project (already applied: duplicates).
    await deliverBatch([...together.slice(0, 30), ...one.slice(0, 5), ...together.slice(30)]);
    expect(harness.logs.lines.filter((line) => line.includes('could not be applied together'))).toEqual([]);
    expect(await projection(projectB)).toEqual(await projection(projectA));
    const total = await harness.sql.query(
      `SELECT sum(volume_usd)::text AS v, sum(conversions)::int AS n FROM audience.user_metrics WHERE project_id = $1`,
      [projectB],
    );
    // 0.00 + 1.01 + 2.02 + ... + 59.59 = 1770 + 17.70, to the cent.
    expect(total.rows[0]).toEqual({ v: '1787.70', n: 60 });
  });

  it('counts a referral on its referrer, on the UTC day it happened, and ignores one naming another project', async () => {
    const projectId = randomUUID();
    const referrer = randomEvmAddress();
    await deliver(job(projectId, 'agency.referral.created', referral(projectId, referrer, '2026-11-21T23:30:00.000-02:00')));
    await deliver(job(projectId, 'agency.referral.created', referral(projectId, referrer, '2026-11-21T23:30:00.000Z')));
    expect(await deliver(job(projectId, 'agency.referral.created', referral(randomUUID(), referrer)))).toBe('ignored');
    const rows = await projection(projectId);
    expect(rows.metrics).toEqual([
      { identifier: referrer, volume_usd: '0', revenue_usd: '0', conversions: 0, referred_users: 2, referred_volume_usd: '0' },
    ]);
    expect(rows.referralDays).toEqual([
      { identifier: referrer, day: '2026-11-21', referred_users: 1, referred_volume_usd: '0' },
      { identifier: referrer, day: '2026-11-22', referred_users: 1, referred_volume_usd: '0' },
    ]);
  });

  /** A dynamic audience in the project: what its users' changed inputs are re-matched against. */
  const dynamicSegment = (projectId: string) =>
    harness.domain.segments.create(projectId, {
      name: `Traders ${randomUUID()}`,
      conditionJson: JSON.stringify({ metric: 'conversions', op: 'gte', value: 1 }),
    });
  const pendingMatches = async (projectId: string) =>
    (
      await harness.sql.query(
        'SELECT identifier, identifier_type, changed_at FROM audience.pending_matches WHERE project_id = $1 ORDER BY identifier',
        [projectId],
      )
    ).rows;

  it('records the users an event touches for re-matching, in its transaction: the converting user, its affiliate, every payee; a referral’s referrer', async () => {
    const projectId = randomUUID();
    await dynamicSegment(projectId);
    const [user, affiliate, master, referrer] = [randomEvmAddress(), randomEvmAddress(), randomEvmAddress(), randomEvmAddress()];
    const first = harness.clock.now();
    const paid = conversionJob(projectId, {
      user,
      affiliate,
      currencyId: randomUUID(),
      payouts: [
        ['end_user_payout', user, '1'],
        ['agency_payout', master, '1'],
      ],
    });
    await deliver(paid);
    harness.clock.advance(1_000);
    // A later change of a pending user keeps its first time (one pass for the burst); a redelivery changes nothing.
    await deliverBatch([job(projectId, 'agency.referral.created', referral(projectId, referrer)), conversionJob(projectId, { user }), paid]);
    expect(await deliver(job(projectId, 'agency.referral.created', referral(randomUUID(), randomEvmAddress())))).toBe('ignored');
    const rows = await pendingMatches(projectId);
    const later = new Date(first.getTime() + 1_000);
    expect(rows).toEqual(
      [
        { identifier: user, identifier_type: 'evm_address', changed_at: first },
        { identifier: affiliate, identifier_type: 'evm_address', changed_at: first },
        { identifier: master, identifier_type: 'evm_address', changed_at: first },
        { identifier: referrer, identifier_type: 'evm_address', changed_at: later },
      ].sort((a, b) => a.identifier.localeCompare(b.identifier)),
    );
  });
  it('records nobody for re-matching in a project without a dynamic audience, and records again once it has one', async () => {
    const projectId = randomUUID();
    const [user, affiliate, referrer] = [randomEvmAddress(), randomEvmAddress(), randomEvmAddress()];
    await deliverBatch([conversionJob(projectId, { user, affiliate }), job(projectId, 'agency.referral.created', referral(projectId, referrer))]);
    await deliver(conversionJob(projectId, { user }));
    // The inputs are kept all the same: a dynamic audience created later reads them in its first evaluation.
    expect((await projection(projectId)).metrics.map((row) => row.identifier).sort()).toEqual([user, affiliate, referrer].sort());
    expect(await pendingMatches(projectId)).toEqual([]);

    await dynamicSegment(projectId);
    await deliver(conversionJob(projectId, { user }));
    expect(await pendingMatches(projectId)).toEqual([{ identifier: user, identifier_type: 'evm_address', changed_at: harness.clock.now() }]);
  });
});
