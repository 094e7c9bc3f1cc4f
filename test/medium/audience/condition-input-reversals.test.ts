import { randomUUID } from 'node:crypto';
import type { AudienceDatabase } from '../../../services/audience/database';
import { conditionInputs } from '../../../services/audience/jobs/condition-inputs.consumer';
import type { EventPayload, EventType } from '../../../services/platform/events/contracts';
import type { EventConsumer } from '../../../services/platform/outbox/consumer';
import type { EventJobData } from '../../../services/platform/outbox/event';
import { deliverTo, eventNow, useDomainHarness } from '../../helpers/domain';
import { startAudienceDomain } from '../../helpers/audience-domain';
import { reversalEvent } from '../../helpers/conversion-events';
import { randomEvmAddress } from '../../helpers/evm-addresses';

type Processed = EventPayload<'claim.conversion.processed'>;
const wire = (identifier: string) => ({ identifier, identifier_type: 'evm_address' as const });
const OCCURRED = '2026-11-21T12:00:00.000Z';

/**
 * Reversals in the audience's condition inputs: claim.conversion.reversed takes its share of the
 * conversion's volume, revenue and payouts back out of the rows the conversion was added to (a full
 * reversal takes it out of the counts too), once per event, never below zero.
 */
describe('condition inputs: reversals (consumer, domain)', () => {
  const harness = useDomainHarness(() => startAudienceDomain());

  const consumer = conditionInputs as unknown as EventConsumer<AudienceDatabase, EventType>;
  const job = (projectId: string, type: EventType, payload: unknown, id?: string) =>
    eventNow(harness, projectId, type, payload as EventPayload<EventType>, id);
  const deliver = (data: EventJobData) => deliverTo(harness, consumer, data);

  const usdc = randomUUID();
  function conversion(user: string, affiliate: string, volume: string, revenue: string): Processed {
    return {
      conversion_id: `conv-${randomUUID()}`,
      name: 'trade',
      status: 'processed',
      occurred_at: OCCURRED,
      user: wire(user),
      affiliate: { id: randomUUID(), user: wire(affiliate) },
      master: null,
      tier_id: null,
      volume_usd: volume,
      revenue_usd: revenue,
      currency_id: usdc,
      payouts: [
        { kind: 'end_user_payout', user: wire(user), amount: '80' },
        { kind: 'affiliate_payout', user: wire(affiliate), amount: '1000' },
      ],
    };
  }
  const reversal = (converted: Processed, shareBps: number, volume: string, revenue: string) =>
    reversalEvent(converted, shareBps, { volume, revenue });

  async function projection(projectId: string) {
    const read = async (query: string) => (await harness.sql.query(query, [projectId])).rows;
    return {
      metrics: await read(
        `SELECT identifier, volume_usd::text, revenue_usd::text, conversions::int, referred_volume_usd::text
         FROM audience.user_metrics WHERE project_id = $1 ORDER BY identifier`,
      ),
      conversionDays: await read(
        `SELECT identifier, conversions::int, volume_usd::text, revenue_usd::text FROM audience.user_conversion_days WHERE project_id = $1 ORDER BY identifier`,
      ),
      referralDays: await read(
        `SELECT identifier, referred_volume_usd::text FROM audience.user_referral_days WHERE project_id = $1 ORDER BY identifier`,
      ),
      earningDays: await read(`SELECT identifier, amount::text FROM audience.user_earning_days WHERE project_id = $1 ORDER BY identifier`),
    };
  }

  it('takes each reversal’s share out of the user’s, its referrer’s and the beneficiaries’ figures; the one completing the conversion out of the counts', async () => {
    const projectId = randomUUID();
    const [user, affiliate] = [randomEvmAddress(), randomEvmAddress()];
    const first = conversion(user, affiliate, '100', '10');
    await deliver(job(projectId, 'claim.conversion.processed', first));
    await deliver(job(projectId, 'claim.conversion.processed', conversion(user, affiliate, '1', '1')));
    expect(await deliver(job(projectId, 'claim.conversion.reversed', reversal(first, 2_500, '25', '2.5')))).toBe('handled');

    const sorted = <T extends { identifier: string }>(rows: T[]) => rows.sort((a, b) => (a.identifier < b.identifier ? -1 : 1));
    expect(await projection(projectId)).toEqual({
      metrics: sorted([
        { identifier: user, volume_usd: '76', revenue_usd: '8.5', conversions: 2, referred_volume_usd: '0' },
        { identifier: affiliate, volume_usd: '0', revenue_usd: '0', conversions: 0, referred_volume_usd: '76' },
      ]),
      conversionDays: [{ identifier: user, conversions: 2, volume_usd: '76', revenue_usd: '8.5' }],
      referralDays: [{ identifier: affiliate, referred_volume_usd: '76' }],
      earningDays: sorted([
        { identifier: user, amount: '140' },
        { identifier: affiliate, amount: '1750' },
      ]),
    });

    // The rest of it: the conversion no longer counts.
    await deliver(job(projectId, 'claim.conversion.reversed', reversal(first, 7_500, '75', '7.5')));
    const after = await projection(projectId);
    // Exact NUMERIC arithmetic: 11 - 2.5 - 7.5 keeps the scale of its terms.
    expect(after.metrics).toContainEqual({ identifier: user, volume_usd: '1', revenue_usd: '1.0', conversions: 1, referred_volume_usd: '0' });
    expect(after.conversionDays).toEqual([{ identifier: user, conversions: 1, volume_usd: '1', revenue_usd: '1.0' }]);
    expect(after.referralDays).toEqual([{ identifier: affiliate, referred_volume_usd: '1' }]);
    expect(after.earningDays).toEqual(
      sorted([
        { identifier: user, amount: '80' },
        { identifier: affiliate, amount: '1000' },
      ]),
    );
  });

  it('changes nothing when a reversal is delivered again', async () => {
    const projectId = randomUUID();
    const converted = conversion(randomEvmAddress(), randomEvmAddress(), '10', '1');
    await deliver(job(projectId, 'claim.conversion.processed', converted));
    const reversed = job(projectId, 'claim.conversion.reversed', reversal(converted, 10_000, '10', '1'));
    expect(await deliver(reversed)).toBe('handled');
    const once = await projection(projectId);
    expect(await Promise.all([deliver(reversed), deliver(reversed)])).toEqual(['duplicate', 'duplicate']);
    expect(await projection(projectId)).toEqual(once);
    expect(once.conversionDays).toEqual([{ identifier: converted.user.identifier, conversions: 0, volume_usd: '0', revenue_usd: '0' }]);
  });

  it('waits for the conversion: a reversal before it fails (and is retried), then applies exactly once the conversion is there', async () => {
    const projectId = randomUUID();
    const converted = conversion(randomEvmAddress(), randomEvmAddress(), '10', '1');
    const reversed = job(projectId, 'claim.conversion.reversed', reversal(converted, 5_000, '5', '0.5'));
    await expect(deliver(reversed)).rejects.toThrow(/waits for its claim.conversion.processed/);
    expect(await projection(projectId)).toEqual({ metrics: [], conversionDays: [], referralDays: [], earningDays: [] });
    await deliver(job(projectId, 'claim.conversion.processed', converted));
    expect(await deliver(reversed)).toBe('handled');
    expect((await projection(projectId)).conversionDays).toEqual([
      { identifier: converted.user.identifier, conversions: 1, volume_usd: '5', revenue_usd: '0.5' },
    ]);
  });
});
