import { useFaultStack } from '../helpers/faults/use-fault-stack';
import type { ServiceProcess } from '../helpers/faults/service-process';
import { createProject, createSegment, evmAddress, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import { verifyStandardWebhook, WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * The webhooks service as a real process, killed with SIGKILL while its deliveries are in flight
 * (the receiver holds every request open). After a restart every event reaches the endpoint (at
 * least once, with its id), and the service's records hold exactly one delivery per event.
 */
describe('webhook deliveries through a process death', () => {
  // Attempts may wait for an answer long enough for the kill to land mid-request.
  const stack = useFaultStack({ services: ['audience', 'webhooks'], serviceEnv: { WEBHOOK_TIMEOUT_MS: '30000' } });
  let webhooks: ServiceProcess;
  let project: TestProject;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    webhooks = stack.service('webhooks');
    project = await createProject(stack.gateway);
    receiver = await WebhookReceiver.start();
    stack.atStop(() => receiver.stop());
  });

  it('SIGKILL mid-delivery: after a restart every event is delivered, nothing lost, no delivery twice in the log', async () => {
    const api = stack.gateway.api;
    const created = await api.post(`/api/v1/projects/${project.id}/webhooks`, {
      key: project.keys.admin,
      body: { url: receiver.url('/faults'), events: ['audience.entry_added'] },
    });
    expect(created.status).toBe(201);
    const { id: webhookId, secret } = created.body as { id: string; secret: string };
    receiver.plan('/faults', ['hang']);

    const segment = await createSegment(stack.gateway, project);
    const users = 5;
    for (let n = 1; n <= users; n += 1) {
      const added = await api.post(`/api/v1/projects/${project.id}/audiences/${segment.id}/entries`, {
        key: project.keys.admin,
        body: { identifier: evmAddress(n), identifier_type: 'evm_address' },
      });
      expect(added.status).toBe(201);
    }
    // Every delivery is in flight, held by the receiver: the process dies mid-request.
    await pollUntil(async () => receiver.at('/faults').length >= users, { timeoutMs: 20_000, what: 'every delivery in flight' });
    await webhooks.kill();
    receiver.plan('/faults', [{ status: 200 }]);
    receiver.releaseHeld();
    await webhooks.restart();

    const rows = await pollUntil(
      async () => {
        const { rows } = await stack.db.query<{ event_id: string; status: string }>(
          'SELECT event_id, status FROM webhooks.webhook_deliveries WHERE webhook_id = $1',
          [webhookId],
        );
        return rows.length === users && rows.every((row) => row.status === 'delivered') ? rows : undefined;
      },
      { timeoutMs: 45_000, intervalMs: 100, what: 'every delivery delivered after the restart' },
    );
    expect(new Set(rows.map((row) => row.event_id)).size).toBe(users);
    const received = receiver.at('/faults');
    // At least once, with the same id: the ids received are exactly the events' ids.
    expect(new Set(received.map((request) => request.headers['webhook-id']))).toEqual(new Set(rows.map((row) => row.event_id)));
    for (const request of received) expect(verifyStandardWebhook(secret, request.headers, request.body)).toBe(true);
    const users_ = new Set(received.map((request) => (request.json.data.users as Array<{ identifier: string }>)[0]!.identifier));
    expect(users_.size).toBe(users);
    // Each delivery's log holds its one successful attempt (an attempt cut by the kill left no row).
    const { rows: attempts } = await stack.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhooks.webhook_delivery_attempts a JOIN webhooks.webhook_deliveries d ON d.id = a.delivery_id
       WHERE d.webhook_id = $1 AND a.response_code = 200`,
      [webhookId],
    );
    expect(attempts[0]!.n).toBe(users);
  }, 120_000);
});
