import { randomUUID } from 'node:crypto';
import { deliverEvent, eventProcessor } from '../../../services/platform/outbox/consumer';
import { fanOutConsumer } from '../../../services/webhooks/jobs/fan-out.consumer';
import type { WebhooksDatabase } from '../../../services/webhooks/database';
import type { EventConsumer } from '../../../services/platform/outbox/consumer';
import type { EventType } from '../../../services/platform/events/contracts';
import { startWebhooksDomain } from '../../helpers/webhooks-domain';
import { verifyStandardWebhook } from '../../helpers/webhook-receiver';

type Harness = Awaited<ReturnType<typeof startWebhooksDomain>>;

describe('fan-out and delivery rules', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startWebhooksDomain({ settings: { maxAttempts: 4, backoffMs: 1_000, retryWindowMs: 24 * 3_600_000 } });
  });
  afterAll(() => harness.stop());
  // Each test starts from empty tables, as with a database of its own.
  beforeEach(() => harness.reset());

  const projectId = randomUUID();
  const consumer = fanOutConsumer as unknown as EventConsumer<WebhooksDatabase, EventType>;
  const entryAdded = (project = projectId, id = randomUUID()) => ({
    id,
    type: 'audience.entry_added',
    projectId: project,
    createdAt: harness.clock.now().toISOString(),
    payload: { segment_id: randomUUID(), kind: 'dynamic', users: [{ identifier: '0x' + '1'.repeat(40), identifier_type: 'evm_address' }] },
  });
  const deliver = (data: ReturnType<typeof entryAdded>) => deliverEvent(harness.db, consumer, data, harness.clock, harness.logs.logger('consumer'));
  const deliveryRows = async () =>
    (await harness.sql.query('SELECT id, webhook_id, event_id, status, attempts FROM webhooks.webhook_deliveries ORDER BY created_at')).rows;

  it('creates one delivery per enabled endpoint of the project subscribed to the public type, once however often the event comes', async () => {
    const { webhooks } = harness.domain;
    const subscribed = await webhooks.create(projectId, { url: 'https://a.example.com/', events: ['audience.entry_added', 'conversion.processed'] });
    const alsoSubscribed = await webhooks.create(projectId, { url: 'https://b.example.com/', events: ['audience.entry_added'] });
    await webhooks.create(projectId, { url: 'https://c.example.com/', events: ['audience.entry_removed'] });
    await webhooks.create(projectId, { url: 'https://d.example.com/', events: ['audience.entry_added'], enabled: false });
    await webhooks.create(randomUUID(), { url: 'https://e.example.com/', events: ['audience.entry_added'] });

    const event = entryAdded();
    expect(await deliver(event)).toBe('handled');
    expect(await deliver(event)).toBe('duplicate');
    const rows = await deliveryRows();
    expect(rows.map((row) => row.webhook_id).sort()).toEqual([subscribed.webhook.id, alsoSubscribed.webhook.id].sort());
    expect(rows.every((row) => row.event_id === event.id && row.status === 'pending' && row.attempts === 0)).toBe(true);
    // The stored event is the public one: its name and data, not the internal payload.
    const stored = await harness.sql.query('SELECT type, data FROM webhooks.webhook_events WHERE id = $1', [event.id]);
    expect(stored.rows[0]).toEqual({
      type: 'audience.entry_added',
      data: { audience_id: event.payload.segment_id, kind: 'dynamic', users: event.payload.users },
    });
  });

  it('an event no endpoint subscribes to stores nothing: recorded as handled in one statement, a redelivery is a duplicate even once an endpoint subscribes', async () => {
    await harness.domain.webhooks.create(projectId, { url: 'https://a.example.com/', events: ['conversion.processed'] });
    await harness.domain.webhooks.create(projectId, { url: 'https://b.example.com/', events: ['audience.entry_added'], enabled: false });
    const event = entryAdded();
    expect(await deliver(event)).toBe('nothing_to_do');
    expect(await deliveryRows()).toEqual([]);
    expect((await harness.sql.query('SELECT count(*)::int AS n FROM webhooks.webhook_events')).rows[0].n).toBe(0);
    const recorded = await harness.sql.query('SELECT consumer, event_type, outcome FROM webhooks.processed_events WHERE event_id = $1', [event.id]);
    expect(recorded.rows).toEqual([{ consumer: 'webhooks-fan-out', event_type: 'audience.entry_added', outcome: 'handled' }]);

    // As before the shortcut: an event is fanned out to the endpoints subscribed when it is first processed, never again.
    await harness.domain.webhooks.create(projectId, { url: 'https://c.example.com/', events: ['audience.entry_added'] });
    expect(await deliver(event)).toBe('duplicate');
    expect(await deliveryRows()).toEqual([]);
    // The next event finds the new endpoint.
    expect(await deliver(entryAdded())).toBe('handled');
    expect(await deliveryRows()).toHaveLength(1);
  });

  it('a batch records every event of projects with no subscribed endpoint in one statement, and fans out the others', async () => {
    await harness.domain.webhooks.create(projectId, { url: 'https://a.example.com/', events: ['audience.entry_added'] });
    const quiet = randomUUID();
    const earlier = entryAdded(quiet);
    expect(await deliver(earlier)).toBe('nothing_to_do');
    const [subscribed, first, second] = [entryAdded(), entryAdded(quiet), entryAdded(quiet)];
    const afterCommit: string[] = [];
    const processor = eventProcessor(harness.db, consumer, harness.clock, harness.logs.logger('consumer'), async (event) => {
      afterCommit.push(event.id);
    });
    await processor({ events: [first, subscribed, second, first, earlier] }, {} as never, new AbortController().signal);
    // Only the subscribed project's event is stored and delivered.
    expect((await deliveryRows()).map((row) => row.event_id)).toEqual([subscribed.id]);
    // The event recorded before goes the usual way too (a duplicate there), as with the per-event shortcut.
    expect(afterCommit).toEqual([subscribed.id, earlier.id]);
    const recorded = await harness.sql.query('SELECT event_id, outcome FROM webhooks.processed_events ORDER BY event_id');
    expect(recorded.rows).toEqual(
      [earlier, subscribed, first, second]
        .map((event) => ({ event_id: event.id, outcome: 'handled' }))
        .sort((a, b) => (a.event_id < b.event_id ? -1 : 1)),
    );
  });

  it('signs every attempt with the endpoint secret, and retries until the attempts allowed run out', async () => {
    const { secret } = await harness.domain.webhooks.create(projectId, { url: 'https://a.example.com/', events: ['audience.entry_added'] });
    await deliver(entryAdded());
    const [row] = await deliveryRows();
    harness.sender.results = [{ responseCode: 500, error: null, durationMs: 1 }];
    const results = [];
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      results.push(await harness.domain.deliveries.attempt(row.id));
      harness.clock.advance(1_000 * 2 ** (attempt - 1));
    }
    expect(results).toEqual(['retry', 'retry', 'retry', 'failed']);
    expect(await harness.domain.deliveries.attempt(row.id)).toBe('skipped');
    expect(harness.sender.sent).toHaveLength(4);
    for (const sent of harness.sender.sent) expect(verifyStandardWebhook(secret, sent.headers, sent.body)).toBe(true);
    expect(new Set(harness.sender.sent.map((sent) => sent.body)).size).toBe(1);
    const [failed] = await deliveryRows();
    expect(failed).toMatchObject({ status: 'failed', attempts: 4 });
  });

  it('gives up when an attempt fails past the retry window (24 h on the injected clock), and shows the next attempt while pending', async () => {
    await harness.domain.webhooks.create(projectId, { url: 'https://a.example.com/', events: ['audience.entry_added'] });
    await deliver(entryAdded());
    const [row] = await deliveryRows();
    harness.sender.results = [{ responseCode: null, error: 'no answer within 1000 ms', durationMs: 1_000 }];
    expect(await harness.domain.deliveries.attempt(row.id)).toBe('retry');
    const pending = await harness.sql.query('SELECT next_attempt_at FROM webhooks.webhook_deliveries WHERE id = $1', [row.id]);
    expect(pending.rows[0].next_attempt_at).toEqual(new Date(harness.clock.now().getTime() + 1_000));
    harness.clock.advance(24 * 3_600_000 - 1);
    expect(await harness.domain.deliveries.attempt(row.id)).toBe('retry');
    harness.clock.advance(1);
    expect(await harness.domain.deliveries.attempt(row.id)).toBe('failed');
    expect((await deliveryRows())[0]).toMatchObject({ status: 'failed', attempts: 3 });
  });

  it('a resend reopens the delivery with a fresh window and attempts, and queues it', async () => {
    const { webhook } = await harness.domain.webhooks.create(projectId, { url: 'https://a.example.com/', events: ['audience.entry_added'] });
    await deliver(entryAdded());
    const [row] = await deliveryRows();
    harness.sender.results = [{ responseCode: 410, error: null, durationMs: 1 }];
    for (let attempt = 1; attempt <= 4; attempt += 1) await harness.domain.deliveries.attempt(row.id);
    expect((await deliveryRows())[0]).toMatchObject({ status: 'failed', attempts: 4 });
    const reopened = await harness.domain.deliveries.resend(projectId, webhook.id, row.id, harness.domain.queue);
    expect(reopened).toMatchObject({ status: 'pending', attempts: 4 });
    expect(harness.queued).toEqual([row.id]);
    expect(await harness.domain.deliveries.attempt(row.id)).toBe('retry');
    await expect(harness.domain.deliveries.resend(randomUUID(), webhook.id, row.id, harness.domain.queue)).rejects.toMatchObject({
      code: 'WEBHOOK_DELIVERY_NOT_FOUND',
    });
  });

  it('a delivery to an endpoint disabled since fails without sending', async () => {
    const { webhook } = await harness.domain.webhooks.create(projectId, { url: 'https://a.example.com/', events: ['audience.entry_added'] });
    await deliver(entryAdded());
    await harness.domain.webhooks.update(projectId, webhook.id, { enabled: false });
    const [row] = await deliveryRows();
    expect(await harness.domain.deliveries.attempt(row.id)).toBe('failed');
    expect(harness.sender.sent).toEqual([]);
  });
});
