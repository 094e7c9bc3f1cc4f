import IORedis from 'ioredis';
import { createProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import { startStack, startTestGateway, type TestGateway, type TestStack } from '../helpers/stack';

/**
 * Two gateway replicas over one database and one Redis key prefix: a key revoked through one must
 * stop working on the other at once, and a replica that cannot trust the revocation broadcast
 * (its subscription dropped, so messages may have been missed) must not answer from its cache.
 */
describe('API key revocation across gateway replicas', () => {
  let stack: TestStack;
  let second: TestGateway;
  beforeAll(async () => {
    stack = await startStack();
    second = await startTestGateway(stack);
  });
  afterAll(async () => {
    await second.stop();
    await stack.stop();
  });

  const list = (api: TestGateway['api'], key: string) => api.get('/v1/audiences/audience-segments', { key });

  it('refuses a key on the other replica as soon as one replica has revoked it', async () => {
    const project = await createProject(stack);
    // Both replicas have verified (and cached) the key.
    expect((await list(stack.api, project.keys.service)).status).toBe(200);
    expect((await list(second.api, project.keys.service)).status).toBe(200);

    const revoked = await stack.api.delete(`/api/v1/projects/${project.id}/api-keys/${project.keyIds.service}`, { key: project.keys.admin });
    expect(revoked.status).toBe(204);

    // The broadcast is already on its way when the revoking request answers; allow it a moment, not the cache TTL.
    await pollUntil(async () => (await list(second.api, project.keys.service)).status === 401, {
      // 3 s: a loaded CI machine may take a second to hand over the message; the cache would take 30.
      timeoutMs: 3_000,
      intervalMs: 20,
      what: 'the second replica to refuse the revoked key',
    });
    expect((await list(stack.api, project.keys.service)).status).toBe(401);
    expect((await list(second.api, project.keys.service)).status).toBe(401);
  });

  it('forgets every cached key when its subscription drops, since revocations may have been missed', async () => {
    const project = await createProject(stack);
    expect((await list(second.api, project.keys.readOnly)).status).toBe(200);

    // A revocation whose broadcast never reaches the second replica (written straight to PostgreSQL)...
    await stack.db.query('UPDATE access.api_keys SET revoked_at = now() WHERE id = $1', [project.keyIds.readOnly]);
    // ...and the second replica's subscriber connection drops and reconnects.
    await killSubscriberConnections(stack.redisUrl, `${stack.queuePrefix}:gateway:revocations`);

    await pollUntil(async () => (await list(second.api, project.keys.readOnly)).status === 401, {
      timeoutMs: 3_000,
      intervalMs: 20,
      what: 'the second replica to stop trusting its cache',
    });
    // Keys that are still valid keep working throughout.
    expect((await list(second.api, project.keys.service)).status).toBe(200);
    // And the replica subscribes again by itself (both replicas subscribed once at start, this one twice).
    await pollUntil(async () => stack.logs.lines.filter((line) => line.includes('key revocations subscribed')).length >= 3, {
      timeoutMs: 3_000,
      what: 'the second replica to subscribe again',
    });
  });
});

/** CLIENT KILL for the connections of one name (only this stack's subscribers carry it). */
async function killSubscriberConnections(redisUrl: string, connectionName: string): Promise<void> {
  const redis = new IORedis(redisUrl);
  try {
    const clients = (await redis.client('LIST')) as string;
    const ids = clients
      .split('\n')
      .filter((line) => line.includes(` name=${connectionName} `))
      .map((line) => /(?:^|\s)id=(\d+)/.exec(line)?.[1])
      .filter((id): id is string => id !== undefined);
    if (ids.length === 0) throw new Error(`no Redis connection named ${connectionName}`);
    for (const id of ids) await redis.client('KILL', 'ID', id);
  } finally {
    await redis.quit();
  }
}
