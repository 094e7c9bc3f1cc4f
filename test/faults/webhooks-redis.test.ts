import { useFaultStack } from '../helpers/faults/use-fault-stack';
import { createProject, evmAddress, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';
import { newWallet, signIn } from '../helpers/wallet';
import { adminPaths, w8ben } from '../tax/tax-forms';
import { verifyStandardWebhook, WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * Webhooks when Redis is taken away and comes back empty (every queue, job and retry in it lost),
 * with the agency, tax and webhooks services as real processes: events produced while Redis is gone,
 * and deliveries in flight or waiting for a retry when it comes back empty, all reach their
 * endpoints afterwards. The receiver may see an attempt again (same webhook-id); the delivery log
 * holds exactly one row per (event, endpoint).
 */
describe('webhook deliveries through the loss of Redis', () => {
  const stack = useFaultStack({
    services: ['agency', 'tax', 'webhooks'],
    ownRedis: true,
    // An attempt may stay unanswered for long; retries keep going long enough to still be pending when Redis returns.
    serviceEnv: { WEBHOOK_TIMEOUT_MS: '30000', WEBHOOK_MAX_ATTEMPTS: '20', WEBHOOK_BACKOFF_MS: '200' },
  });
  let project: TestProject;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    project = await createProject(stack.gateway);
    receiver = await WebhookReceiver.start();
    stack.atStop(() => receiver.stop());
  });

  const api = () => stack.gateway.api;

  async function subscribe(path: string, events: string[]) {
    const created = await api().post(`/api/v1/projects/${project.id}/webhooks`, {
      key: project.keys.admin,
      body: { url: receiver.url(path), events },
    });
    expect(created.status).toBe(201);
    return created.body as { id: string; secret: string };
  }

  async function createAffiliate(n: number) {
    const response = await api().post(`/api/v1/projects/${project.id}/affiliates`, {
      key: project.keys.admin,
      body: { identifier: evmAddress(n), identifier_type: 'evm_address', name: `Affiliate ${n}` },
    });
    expect(response.status).toBe(201);
  }

  const deliveryRows = async (webhookId: string) =>
    (
      await stack.db.query<{ event_id: string; status: string }>('SELECT event_id, status FROM webhooks.webhook_deliveries WHERE webhook_id = $1', [
        webhookId,
      ])
    ).rows;

  /** Every one of `count` deliveries delivered; then exactly one row per event, and the receiver saw exactly those events, signed. */
  async function expectDeliveredOnce(webhook: { id: string; secret: string }, path: string, eventIds: readonly string[]) {
    const rows = await pollUntil(
      async () => {
        const current = await deliveryRows(webhook.id);
        return current.length >= eventIds.length && current.every((row) => row.status === 'delivered') ? current : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, what: `${eventIds.length} deliveries to ${path} delivered` },
    );
    expect(rows).toHaveLength(eventIds.length);
    expect(new Set(rows.map((row) => row.event_id))).toEqual(new Set(eventIds));
    const received = receiver.at(path);
    expect(new Set(received.map((request) => request.headers['webhook-id']))).toEqual(new Set(eventIds));
    for (const request of received) expect(verifyStandardWebhook(webhook.secret, request.headers, request.body)).toBe(true);
    // Each delivery's log holds its one successful attempt.
    const { rows: successes } = await stack.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhooks.webhook_delivery_attempts a JOIN webhooks.webhook_deliveries d ON d.id = a.delivery_id
       WHERE d.webhook_id = $1 AND a.response_code BETWEEN 200 AND 299`,
      [webhook.id],
    );
    expect(successes[0]!.n).toBe(eventIds.length);
  }

  const agencyEventIds = async (type: string, from: number, to: number) =>
    (
      await stack.db.query<{ id: string }>(
        `SELECT id FROM agency.outbox WHERE type = $1 AND project_id = $2 AND (payload->'user'->>'identifier') = ANY($3)`,
        [type, project.id, Array.from({ length: to - from + 1 }, (_, i) => evmAddress(from + i))],
      )
    ).rows.map((row) => row.id);

  it('delivers every event produced while Redis was gone, by the agency and the tax service, once it is back empty', async () => {
    const webhook = await subscribe('/while-gone', ['affiliate.created', 'tax_status.changed']);
    // Wallet sign-in needs Redis (its nonces); the session it gives does not.
    const wallet = await newWallet();
    const token = await signIn(stack.gateway as unknown as TestStack, wallet);
    await stack.redis!.stop();
    // The API keeps working without Redis: the events wait in the producers' outboxes.
    for (let n = 1; n <= 6; n += 1) await createAffiliate(n);
    expect((await api().post(`/api/v1/projects/${project.id}/affiliate-portal/tax-info`, { key: token, body: w8ben() })).status).toBe(201);
    expect((await api().post(adminPaths(project, wallet.address).approve, { key: project.keys.admin })).status).toBe(200);
    const affiliateEvents = await agencyEventIds('agency.affiliate.created', 1, 6);
    expect(affiliateEvents).toHaveLength(6);
    const taxEvents = (
      await stack.db.query<{ id: string }>(`SELECT id FROM tax.outbox WHERE project_id = $1 AND payload->'user'->>'identifier' = $2`, [
        project.id,
        wallet.address,
      ])
    ).rows.map((row) => row.id);
    expect(taxEvents).toHaveLength(2);
    expect(await deliveryRows(webhook.id)).toEqual([]);

    await stack.redis!.startEmpty();
    await expectDeliveredOnce(webhook, '/while-gone', [...affiliateEvents, ...taxEvents]);
    const statuses = receiver
      .at('/while-gone')
      .filter((request) => request.json.type === 'tax_status.changed')
      .map((request) => request.json.data.to);
    expect(new Set(statuses)).toEqual(new Set(['submitted', 'approved']));
  }, 120_000);

  it('delivers the deliveries in flight or waiting for a retry when Redis comes back empty, one log row per (event, endpoint)', async () => {
    const held = await subscribe('/held', ['affiliate.created']);
    const failing = await subscribe('/failing', ['affiliate.created']);
    receiver.plan('/held', ['hang']);
    receiver.plan('/failing', [{ status: 503 }]);
    for (let n = 101; n <= 105; n += 1) await createAffiliate(n);
    const events = await agencyEventIds('agency.affiliate.created', 101, 105);
    expect(events).toHaveLength(5);
    // Every delivery is in flight at /held, and retrying with backoff at /failing.
    await pollUntil(async () => receiver.at('/held').length >= 5 && new Set(receiver.at('/failing').map((r) => r.headers['webhook-id'])).size >= 5, {
      timeoutMs: 30_000,
      what: 'every delivery in flight or retrying',
    });
    expect((await deliveryRows(held.id)).every((row) => row.status === 'pending')).toBe(true);
    expect((await deliveryRows(failing.id)).every((row) => row.status === 'pending')).toBe(true);

    await stack.redis!.stop();
    await stack.redis!.startEmpty();
    receiver.plan('/held', [{ status: 200 }]);
    receiver.plan('/failing', [{ status: 200 }]);
    receiver.releaseHeld();

    await expectDeliveredOnce(held, '/held', events);
    await expectDeliveredOnce(failing, '/failing', events);
  }, 120_000);
});
