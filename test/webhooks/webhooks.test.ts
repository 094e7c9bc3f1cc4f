import { createProject, createSegment, evmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';
import { verifyStandardWebhook, WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * Webhooks through the real stack: endpoints managed over HTTP, events triggered through the API
 * (an audience entry added -> audience.entry_added), delivered to a real HTTP receiver in this
 * process. The test stack retries after 50 ms (doubling), times an attempt out after 1 s and allows
 * 5 attempts (test/helpers/stack.ts).
 */
describe('webhooks', () => {
  let stack: TestStack;
  let project: TestProject;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await stack?.stop();
  });

  const base = () => `/api/v1/projects/${project.id}/webhooks`;
  let pathCounter = 0;
  const freshPath = () => `/hook-${++pathCounter}`;

  async function createWebhook(events: string[], path = freshPath()) {
    const response = await stack.api.post(base(), { key: project.keys.admin, body: { url: receiver.url(path), events } });
    expect(response.status).toBe(201);
    return { id: response.body.id as string, secret: response.body.secret as string, path };
  }

  async function addEntry(segmentId: string, n: number) {
    const response = await stack.api.post(`/api/v1/projects/${project.id}/audiences/${segmentId}/entries`, {
      key: project.keys.admin,
      body: { identifier: evmAddress(n), identifier_type: 'evm_address' },
    });
    expect(response.status).toBe(201);
  }

  const deliveries = async (webhookId: string) => (await stack.api.get(`${base()}/${webhookId}/deliveries`, { key: project.keys.admin })).body;

  async function untilDeliveries(webhookId: string, done: (items: Array<Record<string, unknown>>) => boolean, what: string) {
    return pollUntil(
      async () => {
        const list = await deliveries(webhookId);
        return list.results.length > 0 && done(list.results) ? list.results : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 50, what },
    );
  }

  describe('endpoints', () => {
    it('creates an endpoint and shows its whsec_ secret once; reads never show it', async () => {
      const created = await stack.api.post(base(), {
        key: project.keys.admin,
        body: { url: 'https://hooks.example.com/referrals', events: ['conversion.processed'] },
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(String),
        url: 'https://hooks.example.com/referrals',
        events: ['conversion.processed'],
        enabled: true,
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
        created_at: stack.clock.now().toISOString(),
        updated_at: stack.clock.now().toISOString(),
      });
      const read = await stack.api.get(`${base()}/${created.body.id}`, { key: project.keys.readOnly });
      expect(read.status).toBe(200);
      expect(read.body).not.toHaveProperty('secret');
      expect(read.text).not.toContain(created.body.secret.slice(6));
      const list = await stack.api.get(base(), { key: project.keys.readOnly });
      expect(list.status).toBe(200);
      expect(list.body.results.map((item: { id: string }) => item.id)).toContain(created.body.id);
      expect(list.text).not.toContain(created.body.secret.slice(6));
      // Stored sealed: the secret's text is nowhere in the row.
      const row = await stack.db.query('SELECT row_to_json(w)::text AS text FROM webhooks.webhooks w WHERE id = $1', [created.body.id]);
      expect(row.rows[0].text).not.toContain(created.body.secret.slice(6));
    });

    it('changes and deletes an endpoint; a key of another project sees 404', async () => {
      const { id } = await createWebhook(['audience.entry_added']);
      const patched = await stack.api.patch(`${base()}/${id}`, {
        key: project.keys.admin,
        body: { events: ['audience.entry_removed', 'conversion.processed'], enabled: false },
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ events: ['audience.entry_removed', 'conversion.processed'], enabled: false });
      const other = await createProject(stack, 'Other');
      const foreign = await stack.api.get(`/api/v1/projects/${other.id}/webhooks/${id}`, { key: other.keys.admin });
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('WEBHOOK_NOT_FOUND');
      expect((await stack.api.delete(`/api/v1/projects/${other.id}/webhooks/${id}`, { key: other.keys.admin })).status).toBe(404);
      expect((await stack.api.delete(`${base()}/${id}`, { key: project.keys.admin })).status).toBe(204);
      expect((await stack.api.get(`${base()}/${id}`, { key: project.keys.admin })).status).toBe(404);
    });

    it('lets read_only keys read but not write, and service keys do neither', async () => {
      const body = { url: 'https://hooks.example.com/x', events: ['conversion.processed'] };
      expect((await stack.api.post(base(), { key: project.keys.readOnly, body })).status).toBe(403);
      expect((await stack.api.post(base(), { key: project.keys.service, body })).status).toBe(403);
      expect((await stack.api.get(base(), { key: project.keys.service })).status).toBe(403);
    });

    it('refuses URLs that are not https (http only to localhost) and unknown events with 400, storing nothing', async () => {
      const before = (await stack.api.get(base(), { key: project.keys.admin })).body.total_results;
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ url: 'http://hooks.example.com/x', events: ['conversion.processed'] }, 'url'],
        [{ url: 'ftp://hooks.example.com/x', events: ['conversion.processed'] }, 'url'],
        [{ url: 'not a url', events: ['conversion.processed'] }, 'url'],
        [{ url: 'https://user:pw@hooks.example.com/x', events: ['conversion.processed'] }, 'url'],
        [{ url: 'https://hooks.example.com/x', events: ['conversion.exploded'] }, 'events[0]'],
        [{ url: 'https://hooks.example.com/x', events: [] }, 'events'],
      ];
      for (const [body, field] of cases) {
        const response = await stack.api.post(base(), { key: project.keys.admin, body });
        expect(response.status).toBe(400);
        expect(response.body.details.map((detail: { field: string }) => detail.field)).toContain(field);
      }
      expect((await stack.api.get(base(), { key: project.keys.admin })).body.total_results).toBe(before);
    });
  });

  describe('delivery', () => {
    it('delivers audience.entry_added, signed the Standard Webhooks way, to the subscribed endpoints only', async () => {
      const subscribed = await createWebhook(['audience.entry_added']);
      const other = await createWebhook(['audience.entry_removed']);
      const segment = await createSegment(stack, project);
      await addEntry(segment.id, 1);

      const [delivery] = await untilDeliveries(subscribed.id, (items) => items[0]?.status === 'delivered', 'the delivery');
      const [request] = receiver.at(subscribed.path);
      expect(verifyStandardWebhook(subscribed.secret, request!.headers, request!.body)).toBe(true);
      expect(verifyStandardWebhook(other.secret, request!.headers, request!.body)).toBe(false);
      expect(request!.headers['webhook-timestamp']).toBe(String(Math.floor(stack.clock.now().getTime() / 1000)));
      expect(request!.json).toEqual({
        id: request!.headers['webhook-id'],
        type: 'audience.entry_added',
        created_at: expect.any(String),
        data: { audience_id: segment.id, kind: 'static', users: [{ identifier: evmAddress(1), identifier_type: 'evm_address' }] },
      });
      expect(delivery).toMatchObject({
        event_id: request!.json.id,
        event_type: 'audience.entry_added',
        status: 'delivered',
        attempts: 1,
        last_response_code: 200,
        next_attempt_at: null,
      });
      expect(receiver.at(other.path)).toEqual([]);
      expect((await deliveries(other.id)).total_results).toBe(0);
    });

    it('retries after 500s with the same id and body until a 2xx', async () => {
      const hook = await createWebhook(['audience.entry_added']);
      receiver.plan(hook.path, [{ status: 500 }, { status: 503 }, { status: 204 }]);
      const segment = await createSegment(stack, project);
      await addEntry(segment.id, 2);
      const [delivery] = await untilDeliveries(hook.id, (items) => items[0]?.status === 'delivered', 'the delivery after two 5xx');
      expect(delivery).toMatchObject({ status: 'delivered', attempts: 3, last_response_code: 204 });
      const requests = receiver.at(hook.path);
      expect(requests).toHaveLength(3);
      expect(new Set(requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
      expect(new Set(requests.map((request) => request.body)).size).toBe(1);
      for (const request of requests) expect(verifyStandardWebhook(hook.secret, request.headers, request.body)).toBe(true);
      const attempts = await stack.db.query(
        'SELECT attempt, response_code FROM webhooks.webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY attempt',
        [delivery!.id],
      );
      expect(attempts.rows).toEqual([
        { attempt: 1, response_code: 500 },
        { attempt: 2, response_code: 503 },
        { attempt: 3, response_code: 204 },
      ]);
    });

    it('retries after a timeout (no answer within WEBHOOK_TIMEOUT_MS)', async () => {
      const hook = await createWebhook(['audience.entry_added']);
      receiver.plan(hook.path, ['hang', { status: 200 }]);
      const segment = await createSegment(stack, project);
      await addEntry(segment.id, 3);
      const [delivery] = await untilDeliveries(hook.id, (items) => items[0]?.status === 'delivered', 'the delivery after a timeout');
      expect(delivery).toMatchObject({ status: 'delivered', attempts: 2, last_response_code: 200 });
      const attempts = await stack.db.query(
        'SELECT attempt, response_code, error FROM webhooks.webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY attempt',
        [delivery!.id],
      );
      expect(attempts.rows).toEqual([
        { attempt: 1, response_code: null, error: 'no answer within 1000 ms' },
        { attempt: 2, response_code: 200, error: null },
      ]);
      receiver.releaseHeld();
    });

    it('gives up after the attempts allowed, and a resend delivers the same event again', async () => {
      const hook = await createWebhook(['audience.entry_added']);
      receiver.plan(hook.path, [{ status: 500 }]);
      const segment = await createSegment(stack, project);
      await addEntry(segment.id, 4);
      const [failed] = await untilDeliveries(hook.id, (items) => items[0]?.status === 'failed', 'the delivery to fail');
      expect(failed).toMatchObject({ status: 'failed', attempts: 5, last_response_code: 500, next_attempt_at: null });
      expect(receiver.at(hook.path)).toHaveLength(5);

      receiver.plan(hook.path, [{ status: 200 }]);
      const resent = await stack.api.post(`${base()}/${hook.id}/deliveries/${failed!.id}/resend`, { key: project.keys.admin });
      expect(resent.status).toBe(202);
      expect(resent.body).toMatchObject({ id: failed!.id, status: 'pending' });
      const [delivered] = await untilDeliveries(hook.id, (items) => items[0]?.status === 'delivered', 'the resent delivery');
      expect(delivered).toMatchObject({ id: failed!.id, attempts: 6, last_response_code: 200 });
      const requests = receiver.at(hook.path);
      expect(requests).toHaveLength(6);
      expect(requests[5]!.headers['webhook-id']).toBe(requests[0]!.headers['webhook-id']);

      expect((await stack.api.post(`${base()}/${hook.id}/deliveries/${failed!.id}/resend`, { key: project.keys.readOnly })).status).toBe(403);
      const unknown = await stack.api.post(`${base()}/${hook.id}/deliveries/6f1c2a9e-3b7d-4e58-9a0c-2d4b6e8f1a3c/resend`, {
        key: project.keys.admin,
      });
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('WEBHOOK_DELIVERY_NOT_FOUND');
    });

    it('sends nothing to a disabled endpoint', async () => {
      const hook = await createWebhook(['audience.entry_added']);
      await stack.api.patch(`${base()}/${hook.id}`, { key: project.keys.admin, body: { enabled: false } });
      const live = await createWebhook(['audience.entry_added']);
      const segment = await createSegment(stack, project);
      await addEntry(segment.id, 5);
      await untilDeliveries(live.id, (items) => items[0]?.status === 'delivered', 'the enabled endpoint’s delivery');
      expect((await deliveries(hook.id)).total_results).toBe(0);
      expect(receiver.at(hook.path)).toEqual([]);
    });
  });
});
