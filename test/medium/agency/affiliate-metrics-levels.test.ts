import { randomUUID } from 'node:crypto';
import { metricsOf } from '../../../services/agency/repositories/affiliate-metrics.repository';
import type { AffiliateRecord } from '../../../services/agency/repositories/affiliate-record';
import type { EventPayload } from '../../../services/platform/events/contracts';
import { eventProcessor } from '../../../services/platform/outbox/consumer';
import { startAgencyDomain } from '../../helpers/agency-domain';
import { eventNow, useDomainHarness } from '../../helpers/domain';
import { randomEvmAddress } from '../../helpers/evm-addresses';
import { reversalEvent } from '../../helpers/conversion-events';
import { metricsConsumer, metricsDelivery } from './metrics-events';
import { newAffiliate, newProject, newUser } from './program-fixtures';

type Processed = EventPayload<'claim.conversion.processed'>;
type User = { identifier: string; identifierType: string };

const asUser = (user: User) => ({ identifier: user.identifier, identifier_type: user.identifierType as 'evm_address' });

/**
 * Referral levels in the affiliate metrics (docs/claims.md#referral-levels): a conversion's frozen upline
 * (`upline`) and each level's affiliate_payout (`payouts[].level`) give every affiliate its figures per level
 * (r1..r4: volume, revenue, conversions, users, earnings), net of reversals; an event without them is level 1.
 */
describe('affiliate metrics: referral levels (consumer, domain)', () => {
  const harness = useDomainHarness(() => startAgencyDomain());

  const deliver = metricsDelivery(harness);
  const deliverBatch = (projectId: string, payloads: Processed[]) =>
    eventProcessor(
      harness.db,
      metricsConsumer,
      harness.clock,
      harness.logs.logger('consumer'),
    )(
      { events: payloads.map((payload) => eventNow(harness, projectId, 'claim.conversion.processed', payload)) },
      {} as never,
      new AbortController().signal,
    );

  const usdc = { id: randomUUID(), chain_id: '8453', address: randomEvmAddress(), name: 'USDC', decimals: 6 };

  /** A paid conversion: `paid` per level (1 the affiliate, 2..4 the upline), the upline frozen as given. */
  function conversion(fields: {
    affiliate: AffiliateRecord;
    upline?: AffiliateRecord[];
    volume: string;
    revenue: string;
    paid: bigint[];
    occurredAt?: string;
    /** An event from before referral levels: no upline, no levels. */
    legacy?: boolean;
  }): Processed {
    const user = newUser();
    const chain = [fields.affiliate, ...(fields.upline ?? [])];
    return {
      conversion_id: `conv-${randomUUID()}`,
      name: 'trade',
      status: 'processed',
      occurred_at: fields.occurredAt ?? '2026-11-21T12:00:00.000Z',
      user: asUser(user),
      affiliate: { id: fields.affiliate.id, user: asUser(fields.affiliate.user) },
      master: null,
      ...(fields.legacy ? {} : { upline: (fields.upline ?? []).map((up, index) => ({ level: index + 2, id: up.id, user: asUser(up.user) })) }),
      tier_id: null,
      volume_usd: fields.volume,
      revenue_usd: fields.revenue,
      currency_id: usdc.id,
      currency: usdc,
      payouts: [
        { kind: 'end_user_payout', user: asUser(user), amount: '7' },
        ...fields.paid.flatMap((amount, index) =>
          amount === 0n
            ? []
            : [
                {
                  kind: 'affiliate_payout' as const,
                  user: asUser(chain[index]!.user),
                  amount: String(amount),
                  ...(fields.legacy ? {} : { level: index + 1 }),
                },
              ],
        ),
      ],
    };
  }

  /** An affiliate's figures per level 1..4 over all time (or a window of days), as the stats read them. */
  const levels = async (projectId: string, affiliate: AffiliateRecord, from?: string, to?: string) => {
    const figures = await harness.domain.activity.figuresOf(
      projectId,
      affiliate.user,
      from === undefined ? undefined : new Date(from),
      to === undefined ? undefined : new Date(to),
      undefined,
    );
    return figures.levels.map((level) => ({
      level: level.level,
      volume: Number(level.volumeUsd),
      revenue: Number(level.revenueUsd),
      conversions: Number(level.conversions),
      users: Number(level.convertingUsers),
      paidVolume: Number(level.paidVolumeUsd),
      earnings: level.earnings.map((earning) => `${earning.amount} ${earning.currency?.name ?? earning.currencyId}`),
    }));
  };
  const zero = (level: number) => ({ level, volume: 0, revenue: 0, conversions: 0, users: 0, paidVolume: 0, earnings: [] });
  const level = (n: number, volume: number, revenue: number, conversions: number, earnings: string[] = []) => ({
    level: n,
    volume,
    revenue,
    conversions,
    users: conversions,
    paidVolume: volume,
    earnings,
  });

  it('gives each affiliate of the chain its level’s volume and payout; level 1 keeps only its own payouts', async () => {
    const projectId = newProject();
    const [a, b, c, d] = [
      await newAffiliate(harness, projectId),
      await newAffiliate(harness, projectId),
      await newAffiliate(harness, projectId),
      await newAffiliate(harness, projectId),
    ];
    // A's user converts: B, C, D above A; D's level paid nothing (its volume counts all the same).
    const one = conversion({ affiliate: a, upline: [b, c, d], volume: '100', revenue: '10', paid: [1000n, 300n, 200n, 0n] });
    expect(await deliver(projectId, 'claim.conversion.processed', one)).toBe('handled');
    // Two more in one batch: B's own user (C above B), and an event from before levels (A, level 1 only).
    const two = conversion({ affiliate: b, upline: [c], volume: '50', revenue: '5', paid: [500n, 100n] });
    const legacy = conversion({ affiliate: a, volume: '20', revenue: '2', paid: [100n], legacy: true });
    await deliverBatch(projectId, [two, legacy]);

    expect(await levels(projectId, a)).toEqual([level(1, 120, 12, 2, ['1100 USDC']), zero(2), zero(3), zero(4)]);
    expect(await levels(projectId, b)).toEqual([level(1, 50, 5, 1, ['500 USDC']), level(2, 100, 10, 1, ['300 USDC']), zero(3), zero(4)]);
    expect(await levels(projectId, c)).toEqual([zero(1), level(2, 50, 5, 1, ['100 USDC']), level(3, 100, 10, 1, ['200 USDC']), zero(4)]);
    expect(await levels(projectId, d)).toEqual([zero(1), zero(2), zero(3), level(4, 100, 10, 1)]);
    // The level-1 projection (the affiliate list's figures) holds level 1 only: B's upper-level payouts are not its own.
    const metrics = await metricsOf(harness.db, projectId, [a.id, b.id, c.id]);
    expect(metrics.get(a.id)!.earnings.map((earning) => earning.amount)).toEqual([1100n]);
    expect(metrics.get(b.id)!.earnings.map((earning) => earning.amount)).toEqual([500n]);
    expect(metrics.get(b.id)!.volumeUsd).toBe('50');
    expect(metrics.get(c.id)!.earnings).toEqual([]);

    // Replayed (same event id, or another id for the same conversion): nothing changes.
    const before = await Promise.all([a, b, c, d].map((affiliate) => levels(projectId, affiliate)));
    await deliver(projectId, 'claim.conversion.processed', one);
    await deliverBatch(projectId, [two]);
    expect(await Promise.all([a, b, c, d].map((affiliate) => levels(projectId, affiliate)))).toEqual(before);
  });

  it('takes a reversal’s share out of every level, and a full one out of the counts', async () => {
    const projectId = newProject();
    const [a, b, c] = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
    const converted = conversion({ affiliate: a, upline: [b, c], volume: '100', revenue: '10', paid: [1000n, 301n, 200n] });
    await deliver(projectId, 'claim.conversion.processed', converted);
    expect(await deliver(projectId, 'claim.conversion.reversed', reversalEvent(converted, 5_000, { volume: '50', revenue: '5' }))).toBe('handled');
    // floor(301 / 2) = 150 came back from level 2: 151 stays.
    expect(await levels(projectId, a)).toEqual([level(1, 50, 5, 1, ['500 USDC']), zero(2), zero(3), zero(4)]);
    expect(await levels(projectId, b)).toEqual([zero(1), level(2, 50, 5, 1, ['151 USDC']), zero(3), zero(4)]);
    expect(await levels(projectId, c)).toEqual([zero(1), zero(2), level(3, 50, 5, 1, ['100 USDC']), zero(4)]);
    // The rest (the other 5000 bps): nothing left, and no conversion counted at any level.
    const rest = reversalEvent(converted, 5_000, { volume: '50', revenue: '5' });
    rest.reversals = rest.reversals.map((part) => (part.level === 2 ? { ...part, amount: '151', from_check: '151' } : part));
    await deliver(projectId, 'claim.conversion.reversed', rest);
    expect(await levels(projectId, b)).toEqual([zero(1), zero(2), zero(3), zero(4)]);
    expect(await levels(projectId, c)).toEqual([zero(1), zero(2), zero(3), zero(4)]);
  });

  it('answers a level over a window of days by the conversion’s moment', async () => {
    const projectId = newProject();
    const [a, b] = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
    await deliver(
      projectId,
      'claim.conversion.processed',
      conversion({ affiliate: a, upline: [b], volume: '10', revenue: '1', paid: [10n, 3n], occurredAt: '2026-10-31T23:59:59.000Z' }),
    );
    await deliver(
      projectId,
      'claim.conversion.processed',
      conversion({ affiliate: a, upline: [b], volume: '30', revenue: '3', paid: [30n, 9n], occurredAt: '2026-11-01T00:00:00.000Z' }),
    );
    expect((await levels(projectId, b, '2026-11-01', '2026-11-30'))[1]).toEqual(level(2, 30, 3, 1, ['9 USDC']));
    expect((await levels(projectId, b, '2026-10-01', '2026-10-31'))[1]).toEqual(level(2, 10, 1, 1, ['3 USDC']));
    expect((await levels(projectId, b))[1]).toEqual(level(2, 40, 4, 2, ['12 USDC']));
  });

  it('ignores an event whose upline names an affiliate this project does not have', async () => {
    const projectId = newProject();
    const a = await newAffiliate(harness, projectId);
    const stranger = await newAffiliate(harness, newProject());
    expect(
      await deliver(
        projectId,
        'claim.conversion.processed',
        conversion({ affiliate: a, upline: [stranger], volume: '10', revenue: '1', paid: [10n, 3n] }),
      ),
    ).toBe('ignored');
    expect(await levels(projectId, a)).toEqual([zero(1), zero(2), zero(3), zero(4)]);
  });
});
