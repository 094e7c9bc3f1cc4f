import pg from 'pg';
import { withinMs } from '../../../services/platform/deadline';
import { createLogger } from '../../../services/platform/logger';
import { QueueKit } from '../../../services/platform/queue';
import { CATALOG, SERVICE_CATALOG, type ServiceName } from '../../../services/platform/service-catalog';
import { LogCapture } from '../log-capture';
import {
  commonEnv,
  createTestDatabase,
  deleteKeys,
  type GrpcAddresses,
  newQueuePrefix,
  startTestGateway,
  TEST_SERVICE_ENV,
  type TestGateway,
  testGatewayEnv,
} from '../stack';
import { Api } from '../http';
import { TEST_REDIS_URL } from '../../setup/test-env';
import { freePort } from '../processes';
import { RedisServer } from './redis-server';
import { ServiceProcess, type ServiceProcessOptions } from './service-process';

/**
 * BullMQ and shutdown timing scaled down so a crash is recovered in seconds: a dead process's job
 * lock lapses after 3 s and is noticed within a second, the relay looks every 300 ms, SIGTERM gives
 * running work 1.5 s. (Production keeps BullMQ's 30 s and a 25 s grace.)
 */
export const FAULT_TIMING = {
  WORKER_LOCK_DURATION_MS: '3000',
  WORKER_STALLED_INTERVAL_MS: '1000',
  RELAY_INTERVAL_MS: '300',
  SHUTDOWN_GRACE_MS: '1500',
} as const;

export interface FaultStackOptions {
  /** The services to run as child processes. */
  services: ServiceName[];
  /** A Redis server of the stack's own, which the test may stop and start empty (else the shared one, with a key prefix of its own). */
  ownRedis?: boolean;
  /** Variables for every service process, over FAULT_TIMING. */
  serviceEnv?: Record<string, string>;
}

/** A gateway running as a process of its own. */
export interface GatewayProcess {
  process: ServiceProcess;
  api: Api;
  baseUrl: string;
}

export interface FaultStack {
  /** The gateway (in this test process) in front of the service processes. */
  gateway: TestGateway;
  services: Partial<Record<ServiceName, ServiceProcess>>;
  /** The stack's own Redis server, when asked for. */
  redis: RedisServer | undefined;
  redisUrl: string;
  queuePrefix: string;
  databaseUrl: string;
  /** Direct access to the stack's database, to count what was (not) written. */
  db: pg.Pool;
  /** BullMQ as the services see it, to look at jobs. */
  queues: QueueKit;
  logs: LogCapture;
  service(name: ServiceName): ServiceProcess;
  /** Another gateway replica over the same database and Redis. */
  startGateway(env?: Record<string, string | undefined>): Promise<TestGateway>;
  /**
   * Another process of a running service: a replica with the same database, Redis, queues and
   * variables, on a gRPC port of its own; it stops with the stack (useFaultStack does not bring it
   * back after a test).
   */
  startReplica(name: ServiceName): Promise<ServiceProcess>;
  /**
   * A gateway as a process of its own (gateway/main.ts, as it is deployed) over the same database
   * and Redis, calling the stack's services, or the processes `services` names instead (a replica);
   * it stops with the stack.
   */
  startGatewayProcess(services?: Partial<Record<ServiceName, ServiceProcess>>): Promise<GatewayProcess>;
  /**
   * Has stop() run `cleanup` first (the last added first), while Redis and the services still run:
   * what a file starts beside the stack (clients, a consumer, a receiver) stops with it.
   */
  atStop(cleanup: () => unknown): void;
  stop(): Promise<void>;
}

/**
 * The stack for fault tests: a database of its own, Redis (shared, or its own), services as real
 * child processes on fixed ports (so they can be killed and restarted in place) and a gateway in
 * this process. What every service's fault test needs; each file starts one and shares it.
 */
export async function startFaultStack(options: FaultStackOptions): Promise<FaultStack> {
  const database = await createTestDatabase();
  const redis = options.ownRedis ? await RedisServer.start() : undefined;
  const redisUrl = redis?.url ?? TEST_REDIS_URL;
  const queuePrefix = newQueuePrefix();
  const logs = new LogCapture();
  const services: Partial<Record<ServiceName, ServiceProcess>> = {};
  const gateways: TestGateway[] = [];
  /** Processes started beside the services (replicas, gateway processes). */
  const replicas: ServiceProcess[] = [];
  /** A name for the next of them (claim-2, claim-3, …; gateway-process-1, …), taken before it starts: several may start at once. */
  const named = new Map<string, number>();
  const nextName = (base: string, first: number) => {
    const number = named.get(base) ?? first;
    named.set(base, number + 1);
    return `${base}-${number}`;
  };
  const cleanups: Array<() => unknown> = [];
  const db = new pg.Pool({ connectionString: database.url, max: 3 });
  db.on('error', () => undefined);
  const queues = new QueueKit({ redisUrl, prefix: queuePrefix, logger: createLogger({ service: 'fault-test', level: 'silent' }) });

  /** Starts of replicas and gateway processes still under way: stop() waits for them, and then stops what they started. */
  const starting = new Set<Promise<unknown>>();
  const tracked = <T>(start: Promise<T>): Promise<T> => {
    starting.add(start);
    void start.catch(() => undefined).finally(() => starting.delete(start));
    return start;
  };
  const stop = async () => {
    await Promise.allSettled([...starting]);
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    for (const gateway of gateways.splice(0)) await gateway.stop();
    await Promise.all([...replicas.splice(0), ...Object.values(services)].map((service) => service.stop()));
    // Bounded: a connection to a Redis the test left stopped would wait for it forever.
    await withinMs(
      queues.close().catch(() => undefined),
      2_000,
    );
    await db.end();
    await database.drop();
    if (redis) await redis.stop();
    else await deleteKeys(redisUrl, `${queuePrefix}:*`);
  };

  try {
    const ports = Object.fromEntries(await Promise.all(CATALOG.map(async ({ name }) => [name, await freePort()] as const))) as Record<
      ServiceName,
      number
    >;
    const addresses = Object.fromEntries(CATALOG.map(({ name }) => [name, `127.0.0.1:${ports[name]}`])) as GrpcAddresses;
    // Every service finds the others where the gateway does (the agency calls the audience service, the claim service the agency).
    const addressEnv = Object.fromEntries(CATALOG.map(({ name, addressVariable }) => [addressVariable, addresses[name]]));
    const serviceEnv = (name: ServiceName) => ({
      ...commonEnv(database.url, redisUrl, queuePrefix),
      ...addressEnv,
      ...TEST_SERVICE_ENV[name],
      ...FAULT_TIMING,
      LOG_LEVEL: 'info',
      ...options.serviceEnv,
    });
    await Promise.all(
      CATALOG.filter(({ name }) => options.services.includes(name)).map(async ({ name, grpcService }) => {
        services[name] = await ServiceProcess.start({
          name,
          entry: `services/${name}/main.ts`,
          grpcPort: ports[name],
          healthName: grpcService,
          env: serviceEnv(name),
        });
      }),
    );
    /** Starts a process beside the services; it stops with the stack, even when stop() came while it started. */
    const startBeside = (options: ServiceProcessOptions) =>
      tracked(
        ServiceProcess.start(options).then((started) => {
          replicas.push(started);
          return started;
        }),
      );
    const startReplica = async (name: ServiceName) => {
      if (!services[name]) throw new Error(`the fault stack runs no ${name} service to replicate`);
      const grpcPort = await freePort();
      return startBeside({
        name: nextName(name, 2),
        entry: `services/${name}/main.ts`,
        grpcPort,
        healthName: SERVICE_CATALOG[name].grpcService,
        env: serviceEnv(name),
      });
    };
    const startGatewayProcess = async (replaced: Partial<Record<ServiceName, ServiceProcess>> = {}) => {
      const grpcAddresses = { ...addresses };
      for (const [name, service] of Object.entries(replaced)) grpcAddresses[name as ServiceName] = service.address;
      const gateway = await startBeside({
        name: nextName('gateway-process', 1),
        entry: 'gateway/main.ts',
        httpPort: await freePort(),
        env: { ...testGatewayEnv({ databaseUrl: database.url, redisUrl, queuePrefix, grpcAddresses }), GRPC_TIMEOUT_MS: '30000', LOG_LEVEL: 'info' },
      });
      const baseUrl = `http://${gateway.address}`;
      return { process: gateway, api: new Api(baseUrl), baseUrl };
    };
    const startGateway = async (env?: Record<string, string | undefined>) => {
      const gateway = await startTestGateway({
        databaseUrl: database.url,
        redisUrl,
        queuePrefix,
        grpcAddresses: addresses,
        logs,
        // Several 10,000-entry batches stored at once on a loaded 2-core machine can take longer than the 5 s default.
        env: { GRPC_TIMEOUT_MS: '30000', ...env },
      });
      gateways.push(gateway);
      return gateway;
    };
    const gateway = await startGateway();
    return {
      gateway,
      services,
      redis,
      redisUrl,
      queuePrefix,
      databaseUrl: database.url,
      db,
      queues,
      logs,
      service: (name) => {
        const service = services[name];
        if (!service) throw new Error(`the fault stack runs no ${name} service`);
        return service;
      },
      startGateway,
      startReplica,
      startGatewayProcess,
      atStop: (cleanup) => cleanups.push(cleanup),
      stop,
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
