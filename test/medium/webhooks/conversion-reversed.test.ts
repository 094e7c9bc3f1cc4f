import { randomUUID } from 'node:crypto';
import { deliverEvent, type EventConsumer } from '../../../services/platform/outbox/consumer';
import type { EventPayload, EventType } from '../../../services/platform/events/contracts';
import type { WebhooksDatabase } from '../../../services/webhooks/database';
import { fanOutConsumer } from '../../../services/webhooks/jobs/fan-out.consumer';
import { startWebhooksDomain } from '../../helpers/webhooks-domain';

type Harness = Awaited<ReturnType<typeof startWebhooksDomain>>;

/** claim.conversion.reversed reaches the endpoints subscribed to its public name, conversion.reversed, with the documented data, once. */
describe('fan-out of conversion.reversed', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startWebhooksDomain();
  });
  afterAll(() => harness.stop());

  const consumer = fanOutConsumer as unknown as EventConsumer<WebhooksDatabase, EventType>;
  const user = (digit: string) => ({ identifier: `0x${digit.repeat(40)}`, identifier_type: 'evm_address' as const });

  it('stores the public event with the reversal’s data for each endpoint subscribed to conversion.reversed, once however often it comes', async () => {
    const projectId = randomUUID();
    const subscribed = await harness.domain.webhooks.create(projectId, { url: 'https://a.example.com/', events: ['conversion.reversed'] });
    await harness.domain.webhooks.create(projectId, { url: 'https://b.example.com/', events: ['conversion.processed'] });
    const payload: EventPayload<'claim.conversion.reversed'> = {
      conversion_id: 'order-1',
      reversal_id: 'refund-1',
      name: 'trade',
      share_bps: 2_500,
      reason: 'refund',
      reversed_at: '2026-11-28T12:00:00.000Z',
      occurred_at: '2026-11-21T12:00:00.000Z',
      user: user('1'),
      affiliate: { id: randomUUID(), user: user('2') },
      master: null,
      volume_usd: '25',
      revenue_usd: '2.5',
      currency_id: randomUUID(),
      reversals: [
        { kind: 'affiliate_payout', user: user('2'), amount: '250', was: 'available', from_check: '100', to_debt: '150' },
        { kind: 'end_user_payout', user: user('1'), amount: '20', was: 'pending', from_check: '0', to_debt: '0' },
      ],
    };
    const event = { id: randomUUID(), type: 'claim.conversion.reversed', projectId, createdAt: harness.clock.now().toISOString(), payload };
    const deliver = () => deliverEvent(harness.db, consumer, event, harness.clock, harness.logs.logger('consumer'));
    expect(await deliver()).toBe('handled');
    expect(await deliver()).toBe('duplicate');

    const deliveries = await harness.sql.query('SELECT webhook_id FROM webhooks.webhook_deliveries WHERE event_id = $1', [event.id]);
    expect(deliveries.rows).toEqual([{ webhook_id: subscribed.webhook.id }]);
    const stored = await harness.sql.query('SELECT type, data FROM webhooks.webhook_events WHERE id = $1', [event.id]);
    expect(stored.rows).toEqual([{ type: 'conversion.reversed', data: payload }]);
  });
});
