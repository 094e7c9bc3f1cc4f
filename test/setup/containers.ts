/**
 * TESTCONTAINERS=1 (on a machine with a container engine): PostgreSQL and Redis are started in
 * containers for this run instead of using the local services.
 */
type Stoppable = { stop(): Promise<unknown> };
// Kept on globalThis: jest may load global setup and teardown as separate module instances.
const started: Stoppable[] = ((globalThis as { __referralContainers?: Stoppable[] }).__referralContainers ??= []);

export async function startContainersIfAsked(): Promise<void> {
  if (process.env.TESTCONTAINERS !== '1') return;
  const { GenericContainer, Wait } = await import('testcontainers');
  const postgres = await new GenericContainer('postgres:15-alpine')
    .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  const redis = await new GenericContainer('redis:7-alpine').withExposedPorts(6379).start();
  started.push(postgres, redis);
  process.env.DATABASE_URL = `postgres://postgres@${postgres.getHost()}:${postgres.getMappedPort(5432)}/postgres`;
  process.env.REDIS_URL = `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`;
}

export async function stopContainers(): Promise<void> {
  await Promise.all(started.splice(0).map((container) => container.stop()));
}
