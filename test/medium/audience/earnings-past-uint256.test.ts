import { randomUUID } from 'node:crypto';
import type { AudienceDomain } from '../../../services/audience/composition';
import type { AudienceDatabase } from '../../../services/audience/database';
import { conditionInputs } from '../../../services/audience/jobs/condition-inputs.consumer';
import type { EventPayload, EventType } from '../../../services/platform/events/contracts';
import { MAX_AMOUNT } from '../../../services/rules/money';
import type { EventConsumer } from '../../../services/platform/outbox/consumer';
import { deliverTo, type DomainHarness, eventNow } from '../../helpers/domain';
import { startAudienceDomain } from '../../helpers/audience-domain';
import { randomEvmAddress } from '../../helpers/fixtures';

type Conversion = EventPayload<'claim.conversion.processed'>;

/**
 * Nine payouts of 2^256 − 1 and one of 5: 79 digits, past what NUMERIC(78,0) holds (10^78 − 1, about
 * 8.6 × (2^256 − 1)): the sum that made the event fail for good.
 */
const PAYOUTS = [...Array.from({ length: 9 }, () => MAX_AMOUNT), 5n];
const PAST_UINT256_TEXT = '1042128803135845758812138865078191170679429861990765076355118256071218166759420';

/**
 * A user's earnings per day are a running sum of payouts (migration 0011): each payout is at most
 * 2^256 − 1, their sum is not. The condition-inputs consumer keeps adding past it, exactly, and a
 * dynamic segment's condition on earnings still evaluates over the sum.
 */
describe('earnings past 2^256 − 1 (condition inputs consumer and matching, domain)', () => {
  let harness: DomainHarness<AudienceDomain, AudienceDatabase>;
  beforeAll(async () => {
    harness = await startAudienceDomain();
  });
  afterAll(() => harness.stop());

  const consumer = conditionInputs as unknown as EventConsumer<AudienceDatabase, EventType>;
  const deliver = (projectId: string, payload: Conversion) =>
    deliverTo(harness, consumer, eventNow(harness, projectId, 'claim.conversion.processed', payload));

  const wire = (identifier: string) => ({ identifier, identifier_type: 'evm_address' as const });
  /** A conversion of `user` that paid it `amount` in `currencyId`, today (the clock's 2026-11-21). */
  const conversion = (user: string, currencyId: string, amount: bigint): Conversion => ({
    conversion_id: `conv-${randomUUID()}`,
    name: 'trade',
    status: 'processed',
    occurred_at: '2026-11-21T12:00:00.000Z',
    user: wire(user),
    affiliate: null,
    master: null,
    tier_id: null,
    volume_usd: '1',
    revenue_usd: '0',
    currency_id: currencyId,
    payouts: [{ kind: 'end_user_payout', user: wire(user), amount: amount.toString() }],
  });

  it('adds payouts whose sum passes 2^256 − 1 exactly, and a condition on earnings still matches on the sum', async () => {
    const projectId = randomUUID();
    const currencyId = randomUUID();
    const [whale, minnow] = [randomEvmAddress(), randomEvmAddress()];
    for (const amount of PAYOUTS) expect(await deliver(projectId, conversion(whale, currencyId, amount))).toBe('handled');
    expect(await deliver(projectId, conversion(minnow, currencyId, MAX_AMOUNT))).toBe('handled');

    const days = await harness.sql.query(
      'SELECT identifier, day::text, amount::text FROM audience.user_earning_days d WHERE project_id = $1 ORDER BY d.amount',
      [projectId],
    );
    expect(days.rows).toEqual([
      { identifier: minnow, day: '2026-11-21', amount: MAX_AMOUNT.toString() },
      { identifier: whale, day: '2026-11-21', amount: PAST_UINT256_TEXT },
    ]);
    expect(BigInt(PAST_UINT256_TEXT)).toBe(9n * MAX_AMOUNT + 5n);

    // The largest value a condition takes (78 digits) is below the whale's sum, above the minnow's; a window reads the same day.
    const segment = await harness.domain.segments.create(projectId, {
      name: 'Whales',
      conditionJson: JSON.stringify({ metric: 'earnings', op: 'gt', value: '9'.repeat(78), currency_id: currencyId, window_days: 7 }),
    });
    const { requested } = await harness.domain.evaluations.get(projectId, segment.id);
    await harness.domain.evaluations.run(segment.id, requested);
    expect(await harness.domain.evaluations.get(projectId, segment.id)).toMatchObject({ status: 'completed', matched: 1 });
    const entries = await harness.sql.query('SELECT identifier FROM audience.entries WHERE segment_id = $1', [segment.id]);
    expect(entries.rows).toEqual([{ identifier: whale }]);
  });

  it('keeps a day’s earnings whole base units', async () => {
    const projectId = randomUUID();
    const user = randomEvmAddress();
    expect(await deliver(projectId, conversion(user, randomUUID(), 7n))).toBe('handled');
    // A fraction could not be read back as bigint: the column refuses it.
    await expect(
      harness.sql.query('UPDATE audience.user_earning_days SET amount = amount + 0.5 WHERE project_id = $1', [projectId]),
    ).rejects.toMatchObject({
      constraint: 'user_earning_days_amount_whole',
    });
  });
});
