import { randomUUID } from 'node:crypto';
import type { AgencyDatabase } from '../../../services/agency/database';
import { affiliateMetrics } from '../../../services/agency/jobs/affiliate-metrics.consumer';
import type { AffiliateRecord } from '../../../services/agency/repositories/affiliate-record';
import type { EarningRecord } from '../../../services/agency/repositories/affiliate-metrics.repository';
import type { EventPayload, EventType } from '../../../services/platform/events/contracts';
import { MAX_AMOUNT, toMoney } from '../../../services/rules/money';
import type { EventConsumer } from '../../../services/platform/outbox/consumer';
import { type AgencyHarness, startAgencyDomain } from '../../helpers/agency-domain';
import { deliverTo, eventNow } from '../../helpers/domain';
import { randomEvmAddress } from '../../helpers/fixtures';
import { actor, newAffiliate, newProject, newUser, userOf } from './program-fixtures';

type Payload = EventPayload<'claim.conversion.processed'>;

/**
 * Nine payouts of 2^256 − 1 and one of 5: 79 digits, past what NUMERIC(78,0) holds (10^78 − 1, about
 * 8.6 × (2^256 − 1)): the sum that made the event fail for good.
 */
const PAYOUTS = [...Array.from({ length: 9 }, () => MAX_AMOUNT), 5n];
const PAST_UINT256 = 9n * MAX_AMOUNT + 5n;
const PAST_UINT256_TEXT = '1042128803135845758812138865078191170679429861990765076355118256071218166759420';

/**
 * Earnings are running sums of payouts: each payout is at most 2^256 − 1, their sum is not (migration
 * 0017). The consumer that adds them keeps working past it, every figure stays exact, and every read
 * of them (the list, the portal's stats and history, the master's detail, a rebuild) still answers.
 * Single amounts (a conversion's payouts) stay NUMERIC(78,0).
 */
describe('affiliate earnings past 2^256 − 1 (consumer and reads, domain)', () => {
  let harness: AgencyHarness;

  beforeAll(async () => {
    harness = await startAgencyDomain();
  });
  afterAll(() => harness.stop());

  const consumer = affiliateMetrics as unknown as EventConsumer<AgencyDatabase, EventType>;
  const deliver = (projectId: string, payload: Payload) =>
    deliverTo(harness, consumer, eventNow(harness, projectId, 'claim.conversion.processed', payload));

  const currency = { id: randomUUID(), chain_id: '8453', address: randomEvmAddress(), name: 'WHALE', decimals: 0 };
  const asUser = (user: { identifier: string; identifierType: string }) => ({
    identifier: user.identifier,
    identifier_type: user.identifierType as 'evm_address',
  });

  /** A conversion by a user `sub` referred, `sub` bound to `master`: both paid `amount`. */
  const conversion = (sub: AffiliateRecord, master: AffiliateRecord, amount: bigint): Payload => ({
    conversion_id: `conv-${randomUUID()}`,
    name: 'trade',
    status: 'processed',
    occurred_at: harness.clock.now().toISOString(),
    user: asUser(newUser()),
    affiliate: { id: sub.id, user: asUser(sub.user) },
    master: { id: master.id, user: asUser(master.user), spread_bps: 10_000 },
    tier_id: null,
    volume_usd: '1',
    revenue_usd: '1',
    currency_id: currency.id,
    currency,
    payouts: [
      { kind: 'affiliate_payout', user: asUser(sub.user), amount: amount.toString() },
      { kind: 'agency_payout', user: asUser(master.user), amount: amount.toString() },
    ],
  });

  const amounts = (earnings: readonly EarningRecord[]) => earnings.map((earning) => [earning.currency?.name, earning.amount]);

  it('adds payouts whose sum passes 2^256 − 1, exactly, and every read of the sum answers it', async () => {
    const projectId = newProject();
    const [master, sub] = [await newAffiliate(harness, projectId, 'Master'), await newAffiliate(harness, projectId, 'Sub')];
    await harness.domain.masters.designate(projectId, userOf(master), 10_000, actor);

    // Each payout at the bound; their sum past it: every event applies (none poisons the queue).
    for (const amount of PAYOUTS) expect(await deliver(projectId, conversion(sub, master, amount))).toBe('handled');

    // Exact, in the table and on the wire: a decimal string of 79 digits.
    const stored = await harness.sql.query<{ kind: string; amount: string }>(
      'SELECT kind, amount::text FROM agency.affiliate_earnings WHERE project_id = $1 ORDER BY kind',
      [projectId],
    );
    expect(stored.rows).toEqual([
      { kind: 'affiliate', amount: PAST_UINT256_TEXT },
      { kind: 'agency', amount: PAST_UINT256_TEXT },
    ]);
    expect([PAST_UINT256.toString(), PAST_UINT256_TEXT.length]).toEqual([PAST_UINT256_TEXT, 79]);

    // The affiliate list.
    const { records } = await harness.domain.affiliates.list(projectId, {}, { page: 1, pageSize: 10, offset: 0 });
    const byName = new Map(records.map((record) => [record.name, record.metrics]));
    expect(amounts(byName.get('Sub')!.earnings)).toEqual([['WHALE', PAST_UINT256]]);
    expect(amounts(byName.get('Master')!.agencyEarnings)).toEqual([['WHALE', PAST_UINT256]]);
    expect(toMoney(byName.get('Sub')!.earnings[0]!.amount).amount).toBe(PAST_UINT256_TEXT);

    // The portal's totals and daily series, and its history's payouts of the day.
    const stats = await harness.domain.activity.statsOf(projectId, userOf(sub), undefined, undefined);
    expect(amounts(stats.totals.earnings)).toEqual([['WHALE', PAST_UINT256]]);
    expect(stats.series.flatMap((day) => amounts(day.earnings))).toEqual([['WHALE', PAST_UINT256]]);
    const masterStats = await harness.domain.activity.statsOf(projectId, userOf(master), undefined, undefined);
    expect(masterStats.series.flatMap((day) => amounts(day.agencyEarnings))).toEqual([['WHALE', PAST_UINT256]]);
    const history = await harness.domain.activity.historyOf(projectId, userOf(sub), { page: 1, pageSize: 50, offset: 0 });
    expect(history.records.filter((entry) => entry.type === 'payouts').map((entry) => (entry.data as { amount: string }).amount)).toEqual([
      PAST_UINT256_TEXT,
    ]);

    // The master's detail and the masters list.
    expect(amounts((await harness.domain.masters.get(projectId, master.id)).earnings)).toEqual([['WHALE', PAST_UINT256]]);
    expect(
      (await harness.domain.masters.list(projectId, { page: 1, pageSize: 10, offset: 0 })).records.map((view) => amounts(view.earnings)),
    ).toEqual([[['WHALE', PAST_UINT256]]]);

    // A recomputation from the facts sums the same payouts into the same figures.
    await harness.sql.query('UPDATE agency.affiliate_earnings SET amount = 1 WHERE project_id = $1', [projectId]);
    await harness.domain.metrics.recompute(projectId);
    expect(
      (await harness.sql.query('SELECT kind, amount::text FROM agency.affiliate_earnings WHERE project_id = $1 ORDER BY kind', [projectId])).rows,
    ).toEqual(stored.rows);
  });

  it('keeps earnings whole base units, and a single payout bounded by NUMERIC(78,0)', async () => {
    const projectId = newProject();
    const [master, sub] = [await newAffiliate(harness, projectId), await newAffiliate(harness, projectId)];
    expect(await deliver(projectId, conversion(sub, master, 7n))).toBe('handled');
    // A fraction could not be read back as bigint: the column refuses it.
    await expect(
      harness.sql.query('UPDATE agency.affiliate_earnings SET amount = amount + 0.5 WHERE project_id = $1', [projectId]),
    ).rejects.toMatchObject({
      constraint: 'affiliate_earnings_amount_whole',
    });
    const columns = await harness.sql.query<{
      table_name: string;
      column_name: string;
      numeric_precision: number | null;
      numeric_scale: number | null;
    }>(
      `SELECT table_name, column_name, numeric_precision, numeric_scale FROM information_schema.columns
       WHERE table_schema = 'agency' AND (table_name, column_name) IN (('affiliate_earnings', 'amount'), ('conversion_facts', 'affiliate_payout'), ('conversion_facts', 'agency_payout'))
       ORDER BY table_name, column_name`,
    );
    expect(columns.rows).toEqual([
      { table_name: 'affiliate_earnings', column_name: 'amount', numeric_precision: null, numeric_scale: null },
      { table_name: 'conversion_facts', column_name: 'affiliate_payout', numeric_precision: 78, numeric_scale: 0 },
      { table_name: 'conversion_facts', column_name: 'agency_payout', numeric_precision: 78, numeric_scale: 0 },
    ]);
  });
});
