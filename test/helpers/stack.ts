import pg from 'pg';
import { type Clock, systemClock } from '../../services/platform/clock';
import { loadConfig } from '../../services/platform/config';
import type { RunningProcess } from '../../services/platform/lifecycle';
import { CATALOG, type ServiceName } from '../../services/platform/service-catalog';
import { TEST_REDIS_URL } from '../setup/test-env';
import { TestClock } from './clock';
import { Api } from './http';
import { LogCapture } from './log-capture';
import { freePort } from './processes';
import { TEST_TAX_KEYS } from './tax-keys';
import { createTestDatabase, deleteKeys, newQueuePrefix } from './test-database';

export { createTestDatabase, deleteKeys, dropDatabase, newQueuePrefix } from './test-database';

export const TEST_PLATFORM_KEY = 'test-platform-key-0123456789abcdef0123456789';
/** Sign-In with Ethereum as the test gateway is configured. */
export const TEST_SIWE = { domain: 'referral.test', uri: 'https://referral.test/portal', chainId: 1 };

/** What a service needs beyond the common variables in every test stack (in process or as processes). */
export const TEST_SERVICE_ENV: Partial<Record<ServiceName, Record<string, string>>> = {
  tax: { TAX_ENCRYPTION_KEYS: TEST_TAX_KEYS.spec, TAX_ENCRYPTION_ACTIVE_KEY_ID: TEST_TAX_KEYS.active },
  // Retries in tens of milliseconds and a short attempt timeout, so retry tests take no real time worth waiting for.
  webhooks: { WEBHOOK_BACKOFF_MS: '50', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_MAX_ATTEMPTS: '5' },
  // The test clock stands still unless a test moves it: a kept leaderboard page would never expire.
  claim: { CLAIM_LEADERBOARD_CACHE_MS: '0' },
};

/** Where each service of a stack listens, host:port. */
export type GrpcAddresses = Record<ServiceName, string>;

export interface StackOptions {
  clock?: TestClock;
  /** Gateway variables to override; `undefined` removes a default (e.g. PLATFORM_API_KEY). */
  gatewayEnv?: Record<string, string | undefined>;
  /** Per service, variables to override (`undefined` removes one). */
  serviceEnv?: Partial<Record<ServiceName, Record<string, string | undefined>>>;
}

export interface TestStack {
  api: Api;
  baseUrl: string;
  /** The gateway's Prometheus metrics (GET, on their own port). */
  metricsUrl: string;
  clock: TestClock;
  logs: LogCapture;
  /** Direct access to this stack's database, to check what was (not) written. */
  db: pg.Pool;
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  grpcAddresses: GrpcAddresses;
  stop(): Promise<void>;
}

/**
 * The real stack in this test process: every gRPC service (services/manifests.ts) with its workers
 * and the gateway, on free ports, over a database cloned from the run's migrated template and a
 * Redis key prefix of its own.
 */
export async function startStack(options: StackOptions = {}): Promise<TestStack> {
  const database = await createTestDatabase();
  const queuePrefix = newQueuePrefix();
  const clock = options.clock ?? new TestClock();
  const logs = new LogCapture();
  const common = commonEnv(database.url, TEST_REDIS_URL, queuePrefix);

  const { running, grpcAddresses } = await startServices(common, clock, logs, options.serviceEnv).catch(async (error: unknown) => {
    await database.drop();
    throw error;
  });

  const gateway = await startTestGateway({
    databaseUrl: database.url,
    redisUrl: TEST_REDIS_URL,
    queuePrefix,
    grpcAddresses,
    clock,
    logs,
    env: options.gatewayEnv,
  });
  running.unshift(gateway);

  const db = new pg.Pool({ connectionString: database.url, max: 2 });
  // Dropping the database at stop() ends this pool's connections; an idle one must not surface as
  // an unhandled error in whichever test runs next in this worker.
  db.on('error', () => undefined);
  return {
    api: gateway.api,
    baseUrl: gateway.baseUrl,
    metricsUrl: gateway.metricsUrl,
    clock,
    logs,
    db,
    databaseUrl: database.url,
    redisUrl: TEST_REDIS_URL,
    queuePrefix,
    grpcAddresses,
    stop: async () => {
      for (const process of running) await process.stop();
      await db.end();
      await database.drop();
      await deleteKeys(TEST_REDIS_URL, `${queuePrefix}:*`);
    },
  };
}

/**
 * The services' and the gateway's code, loaded when a stack of this file's own starts: most files borrow the
 * worker's stack (worker-stack.ts) and import this module for its types and helpers, and loading the whole
 * platform into each file's module registry cost a second and a half of CPU a file.
 */
function serviceCode() {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, see above (a dynamic import() would be ESM's) */
  const { startService } = require('../../services/platform/service-manifest') as typeof import('../../services/platform/service-manifest');
  const { SERVICE_MANIFESTS } = require('../../services/manifests') as typeof import('../../services/manifests');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return { startService, SERVICE_MANIFESTS };
}

function gatewayCode() {
  /* eslint-disable @typescript-eslint/no-require-imports -- as serviceCode */
  const { startGateway } = require('../../gateway/server') as typeof import('../../gateway/server');
  const { gatewayConfigSchema } = require('../../gateway/config') as typeof import('../../gateway/config');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return { startGateway, gatewayConfigSchema };
}

/** Starts of the services whose freely chosen port another process bound first (see startServices). */
const PORT_ATTEMPTS = 3;

/**
 * Every service of the manifests in this process. Each one's port is chosen before any starts, so
 * each is told where the others listen (the agency calls the audience service, the claim service
 * the agency, and the agency calls it back), and they all start side by side: each start mostly
 * waits on PostgreSQL and Redis. A port is free when chosen, but another process may bind it
 * before the service does: then the services that started stop, and all start again on new ports.
 */
async function startServices(
  common: Record<string, string>,
  clock: TestClock,
  logs: LogCapture,
  serviceEnv: StackOptions['serviceEnv'],
): Promise<{ running: RunningProcess[]; grpcAddresses: GrpcAddresses }> {
  const { startService, SERVICE_MANIFESTS } = serviceCode();
  for (let attempt = 1; ; attempt += 1) {
    const ports = Object.fromEntries(await Promise.all(CATALOG.map(async ({ name }) => [name, await freePort()] as const))) as Record<
      ServiceName,
      number
    >;
    const grpcAddresses = Object.fromEntries(CATALOG.map(({ name }) => [name, `127.0.0.1:${ports[name]}`])) as GrpcAddresses;
    const addressEnv = Object.fromEntries(CATALOG.map(({ name, addressVariable }) => [addressVariable, grpcAddresses[name]]));
    const started = await Promise.allSettled(
      SERVICE_MANIFESTS.map((manifest) => {
        const name = manifest.service.name as ServiceName;
        const env = withOverrides(
          { ...common, ...addressEnv, GRPC_HOST: '127.0.0.1', GRPC_PORT: String(ports[name]), ...TEST_SERVICE_ENV[name] },
          serviceEnv?.[name],
        );
        return startService(manifest, loadConfig(manifest.configSchema, env), { clock, logger: logs.logger(name) });
      }),
    );
    const running = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (!failed) return { running, grpcAddresses };
    for (const service of running) await service.stop();
    if (attempt >= PORT_ATTEMPTS || !String(failed.reason).includes('already in use')) throw failed.reason;
  }
}

export interface TestGateway extends RunningProcess {
  api: Api;
  baseUrl: string;
  metricsUrl: string;
}

/**
 * A gateway in this test process over a given database, Redis and services: startStack's, or a
 * second replica beside it (same database and key prefix: pass the TestStack itself), or one in
 * front of service processes.
 */
export async function startTestGateway(options: {
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  grpcAddresses: GrpcAddresses;
  /** The system clock when not given (e.g. in front of service processes, which use it). */
  clock?: Clock;
  logs: LogCapture;
  env?: Record<string, string | undefined>;
}): Promise<TestGateway> {
  const { startGateway, gatewayConfigSchema } = gatewayCode();
  const gateway = await startGateway(loadConfig(gatewayConfigSchema, withOverrides(testGatewayEnv(options), options.env)), {
    clock: options.clock ?? systemClock,
    logger: options.logs.logger('gateway'),
  });
  const baseUrl = `http://127.0.0.1:${gateway.port}`;
  return { api: new Api(baseUrl), baseUrl, metricsUrl: `http://127.0.0.1:${gateway.metricsPort}/metrics`, stop: () => gateway.stop() };
}

/** A test gateway's variables (in this process, or a process of its own), on any free ports of 127.0.0.1. */
export function testGatewayEnv(options: { databaseUrl: string; redisUrl: string; queuePrefix: string; grpcAddresses: GrpcAddresses }) {
  return {
    ...commonEnv(options.databaseUrl, options.redisUrl, options.queuePrefix),
    HOST: '127.0.0.1',
    PORT: '0',
    METRICS_PORT: '0',
    PLATFORM_API_KEY: TEST_PLATFORM_KEY,
    ...Object.fromEntries(CATALOG.map((service) => [service.addressVariable, options.grpcAddresses[service.name]])),
    SIWE_DOMAIN: TEST_SIWE.domain,
    SIWE_URI: TEST_SIWE.uri,
    SIWE_CHAIN_ID: String(TEST_SIWE.chainId),
    SESSION_SECRET: 'test-session-secret-0123456789abcdef0123456789',
    VALIDATE_RESPONSES: 'true',
    ACCESS_LOG: 'all',
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_BURST: '100000',
  };
}

/** The variables every process of a test stack shares. */
export function commonEnv(databaseUrl: string, redisUrl: string, queuePrefix: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: queuePrefix,
    DB_POOL_MAX: '5',
    SHUTDOWN_GRACE_MS: '5000',
    // The relay's passes, often enough that tests see lost work re-queued within a bound of a second or two.
    RELAY_INTERVAL_MS: '250',
  };
}

export function withOverrides(base: Record<string, string>, overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = { ...base, ...overrides };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  return env;
}
