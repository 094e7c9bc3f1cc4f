import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { AgencyDatabase } from '../../../services/agency/database';
import { affiliateMetrics } from '../../../services/agency/jobs/affiliate-metrics.consumer';
import { metricsOf } from '../../../services/agency/repositories/affiliate-metrics.repository';
import type { AffiliateRecord } from '../../../services/agency/repositories/affiliate-record';
import type { EventPayload, EventType } from '../../../services/platform/events/contracts';
import { deliverEvent, type EventConsumer } from '../../../services/platform/outbox/consumer';
import { toPage } from '../../../services/rules/pagination';
import { type AgencyHarness, startAgencyDomain } from '../../helpers/agency-domain';
import { randomEvmAddress } from '../../helpers/evm-addresses';
import { sumUsd, usdUnits } from '../../helpers/usd';
import { actor, newAffiliate, newProject, newUser, userOf } from './program-fixtures';

type Payload = EventPayload<'claim.conversion.processed'>;

const SUBS = 3;
const AFFILIATE_BPS = 1_000n;

type Step =
  | { kind: 'convert'; sub: number; cents: number; rewardBase: number; currency: number; deliveries: number }
  | { kind: 'unbind'; sub: number }
  | { kind: 'bind'; sub: number }
  | { kind: 'spread'; bps: number }
  | { kind: 'remove' }
  | { kind: 'designate'; bps: number };

const sub = fc.integer({ min: 0, max: SUBS - 1 });
const bps = fc.integer({ min: 0, max: 2_000 });
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('convert' as const),
      sub,
      cents: fc.integer({ min: 0, max: 10_000_000 }),
      rewardBase: fc.integer({ min: 0, max: 1_000_000_000 }),
      currency: fc.integer({ min: 0, max: 1 }),
      deliveries: fc.integer({ min: 1, max: 2 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('unbind' as const), sub }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('bind' as const), sub }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('spread' as const), bps }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('designate' as const), bps }) },
);

const usdOfCents = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
const CENT = usdUnits('0.01');

/**
 * A master's figures add up over random streams of conversions (some delivered
 * twice), bindings, unbindings, spread changes, removals and designations: after every step, the
 * projection's referred volume and agency earnings of the master equal what a plain model of the
 * stream says (each conversion counts for the master it was bound to at that moment, at that
 * moment's spread, floored), and while it is a master they equal the sums over its sub-affiliate
 * list (former ones included), with sub_affiliates_count the ones bound now.
 */
describe('master figures over random streams (domain)', () => {
  let harness: AgencyHarness;
  beforeAll(async () => {
    harness = await startAgencyDomain();
  });
  afterAll(() => harness.stop());

  const consumer = affiliateMetrics as unknown as EventConsumer<AgencyDatabase, EventType>;
  const currencies = ['USDC', 'DAI'].map((name) => ({ id: randomUUID(), chain_id: '8453', address: randomEvmAddress(), name, decimals: 6 }));

  it('keeps referred volume, count and earnings equal to the model and to the sums over the sub-affiliates', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const projectId = newProject();
        const master = await newAffiliate(harness, projectId, 'Master');
        const subs: AffiliateRecord[] = [];
        const users: Array<ReturnType<typeof newUser>> = [];
        for (let i = 0; i < SUBS; i++) {
          subs.push(await newAffiliate(harness, projectId, `Sub ${i}`));
          users.push(newUser());
          await harness.domain.referrals.refer(projectId, users[i]!, subs[i]!.codes[0]!.code);
        }
        let spread = 300;
        await harness.domain.masters.designate(projectId, userOf(master), spread, actor);
        await harness.domain.masters.bind(projectId, master.id, subs.map(userOf), actor);
        const model = { designated: true, bound: subs.map(() => true), referredCents: subs.map(() => 0), agency: new Map<string, bigint>() };

        for (const current of steps) {
          harness.clock.advance(1_000);
          await apply(current);
          await expectFiguresAddUp();
        }

        async function apply(current: Step): Promise<void> {
          switch (current.kind) {
            case 'convert': {
              const at = harness.clock.now();
              const attribution = await harness.domain.attribution.resolveOne(projectId, { user: users[current.sub]!, at });
              const currency = currencies[current.currency]!;
              const reward = BigInt(current.rewardBase);
              const affiliatePayout = (reward * AFFILIATE_BPS) / 10_000n;
              const agencyPayout = attribution.master ? (reward * BigInt(attribution.spreadBps)) / 10_000n : 0n;
              const affiliateUser = { identifier: subs[current.sub]!.user.identifier, identifier_type: 'evm_address' as const };
              const payload: Payload = {
                conversion_id: `conv-${randomUUID()}`,
                name: 'trade',
                status: 'processed',
                occurred_at: at.toISOString(),
                user: { identifier: users[current.sub]!.identifier, identifier_type: 'evm_address' },
                affiliate: { id: subs[current.sub]!.id, user: affiliateUser },
                master: attribution.master
                  ? {
                      id: attribution.master.id,
                      user: { identifier: attribution.master.user.identifier, identifier_type: 'evm_address' },
                      spread_bps: attribution.spreadBps,
                    }
                  : null,
                tier_id: null,
                volume_usd: usdOfCents(current.cents),
                revenue_usd: '0',
                currency_id: currency.id,
                currency,
                // The ledger writes no movement of zero.
                payouts: [
                  ...(affiliatePayout > 0n ? [{ kind: 'affiliate_payout' as const, user: affiliateUser, amount: String(affiliatePayout) }] : []),
                  ...(agencyPayout > 0n
                    ? [
                        {
                          kind: 'agency_payout' as const,
                          user: { identifier: master.user.identifier, identifier_type: 'evm_address' as const },
                          amount: String(agencyPayout),
                        },
                      ]
                    : []),
                ],
              };
              const eventId = randomUUID();
              for (let delivery = 0; delivery < current.deliveries; delivery++) {
                const data = { id: eventId, type: 'claim.conversion.processed' as const, projectId, payload, createdAt: at.toISOString() };
                const outcome = await deliverEvent(harness.db, consumer, data, harness.clock, harness.logs.logger('consumer'));
                expect(outcome).toBe(delivery === 0 ? 'handled' : 'duplicate');
              }
              // The model: the master it was bound to at that moment, at that moment's spread.
              const counts = model.designated && model.bound[current.sub]!;
              expect(attribution.master?.id ?? null).toBe(counts ? master.id : null);
              if (counts) {
                expect(attribution.spreadBps).toBe(spread);
                model.referredCents[current.sub]! += current.cents;
                const paid = (reward * BigInt(spread)) / 10_000n;
                if (paid > 0n) model.agency.set(currency.address, (model.agency.get(currency.address) ?? 0n) + paid);
              }
              return;
            }
            case 'unbind':
              if (!model.bound[current.sub]) return;
              await harness.domain.masters.unbind(projectId, master.id, userOf(subs[current.sub]!), actor);
              model.bound[current.sub] = false;
              return;
            case 'bind':
              if (!model.designated || model.bound[current.sub]) return;
              await harness.domain.masters.bind(projectId, master.id, [userOf(subs[current.sub]!)], actor);
              model.bound[current.sub] = true;
              return;
            case 'spread':
              if (!model.designated) return;
              await harness.domain.masters.updateSpread(projectId, master.id, current.bps, actor);
              spread = current.bps;
              return;
            case 'remove':
              if (!model.designated) return;
              await harness.domain.masters.remove(projectId, master.id, actor);
              model.designated = false;
              model.bound = model.bound.map(() => false);
              return;
            case 'designate':
              if (model.designated) return;
              await harness.domain.masters.designate(projectId, userOf(master), current.bps, actor);
              spread = current.bps;
              model.designated = true;
              return;
          }
        }

        async function expectFiguresAddUp(): Promise<void> {
          const totalCents = model.referredCents.reduce((sum, cents) => sum + cents, 0);
          const figures = (await metricsOf(harness.db, projectId, [master.id])).get(master.id)!;
          expect(usdUnits(figures.referredVolumeUsd)).toBe(BigInt(totalCents) * CENT);
          expect(perCurrency(figures.agencyEarnings.map((e) => ({ address: e.currency!.address, amount: e.amount })))).toEqual(model.agency);
          if (!model.designated) {
            await expect(harness.domain.masters.get(projectId, master.id)).rejects.toMatchObject({ code: 'AGENCY_NOT_FOUND' });
            return;
          }
          const detail = await harness.domain.masters.get(projectId, master.id);
          const listed = (await harness.domain.masters.listSubAffiliates(projectId, master.id, {}, toPage({ pageSize: 100 }))).records;
          expect(detail.referredVolumeUsd).toBe(figures.referredVolumeUsd);
          expect(sumUsd(listed.map((s) => s.referredVolumeUsd))).toBe(usdUnits(detail.referredVolumeUsd));
          expect(detail.subAffiliatesCount).toBe(model.bound.filter(Boolean).length);
          expect(listed.filter((s) => s.bound).length).toBe(detail.subAffiliatesCount);
          expect(perCurrency(listed.flatMap((s) => s.agencyEarnings).map((e) => ({ address: e.currency!.address, amount: e.amount })))).toEqual(
            model.agency,
          );
          for (const [i, affiliate] of subs.entries()) {
            const row = listed.find((s) => s.id === affiliate.id);
            expect(row ? usdUnits(row.referredVolumeUsd) : 0n).toBe(BigInt(model.referredCents[i]!) * CENT);
          }
        }
      }),
      { numRuns: 20 },
    );
  });
});

function perCurrency(earnings: Array<{ address: string; amount: bigint }>): Map<string, bigint> {
  const sums = new Map<string, bigint>();
  for (const earning of earnings) sums.set(earning.address, (sums.get(earning.address) ?? 0n) + earning.amount);
  return sums;
}
