import type { Kysely, Migration } from 'kysely';
import { type Clock, systemClock } from './clock';
import { ensureDatabaseExists, openDatabase, type Database } from './db/database';
import { migrateToLatest } from './db/migrate';
import { withinMs } from './deadline';
import { type GrpcServiceBinding, startGrpcServer } from './grpc/server';
import { JobRelay } from './job-relay';
import type { RunningProcess } from './lifecycle';
import { closeLogger, createLogger, type LogFormat, type Logger } from './logger';
import { QueueKit } from './queue';

/** The variables a service's runtime reads (baseEnv and serviceEnv in config.ts). */
export interface ServiceRuntimeConfig {
  DATABASE_URL: string;
  DB_POOL_MAX: number;
  REDIS_URL: string;
  QUEUE_PREFIX: string;
  NODE_ENV: string;
  LOG_LEVEL: string;
  LOG_FORMAT?: LogFormat;
  GRPC_HOST: string;
  GRPC_PORT: number;
  SHUTDOWN_GRACE_MS: number;
  RELAY_INTERVAL_MS: number;
  RELAY_MAX_REQUEUES: number;
  WORKER_LOCK_DURATION_MS: number;
  WORKER_STALLED_INTERVAL_MS: number;
}

/** What tests (and only tests) replace: time and where logs go. */
export interface ServiceOverrides {
  clock?: Clock;
  logger?: Logger;
}

export interface RunningService extends RunningProcess {
  grpcPort: number;
}

/** After the grace period, how long closing connections may take. */
const CLOSE_WAIT_MS = 3_000;

/**
 * What every service starts from: its logger and clock, its own schema migrated to the latest
 * version, its queues and the job relay. A service's composition root builds its domain on top,
 * registers its jobs with the relay and calls `serve`; `stop` then undoes everything in order.
 */
export class ServiceRuntime<DB> {
  readonly relay: JobRelay;

  private constructor(
    readonly name: string,
    readonly logger: Logger,
    readonly clock: Clock,
    private readonly database: Database<DB>,
    readonly queues: QueueKit,
    private readonly config: ServiceRuntimeConfig,
  ) {
    this.relay = new JobRelay(queues, { intervalMs: config.RELAY_INTERVAL_MS, maxRequeues: config.RELAY_MAX_REQUEUES, logger });
  }

  get db(): Kysely<DB> {
    return this.database.db;
  }

  static async start<DB>(options: {
    name: string;
    schema: string;
    migrations: Record<string, Migration>;
    config: ServiceRuntimeConfig;
    overrides?: ServiceOverrides;
  }): Promise<ServiceRuntime<DB>> {
    const { name, schema, config } = options;
    const logger = options.overrides?.logger ?? createLogger({ service: name, level: config.LOG_LEVEL, format: config.LOG_FORMAT, nodeEnv: config.NODE_ENV });
    const clock = options.overrides?.clock ?? systemClock;
    await ensureDatabaseExists(config.DATABASE_URL);
    const database = openDatabase<DB>({ url: config.DATABASE_URL, schema, poolMax: config.DB_POOL_MAX, applicationName: name, logger });
    await migrateToLatest(database.db, schema, options.migrations, logger);
    const queues = new QueueKit({
      redisUrl: config.REDIS_URL,
      prefix: config.QUEUE_PREFIX,
      logger,
      worker: { lockDurationMs: config.WORKER_LOCK_DURATION_MS, stalledIntervalMs: config.WORKER_STALLED_INTERVAL_MS },
    });
    await queues.ready();
    return new ServiceRuntime(name, logger, clock, database, queues, config);
  }

  /**
   * Starts the relay (if jobs were registered) and the gRPC server. `stop`, on SIGTERM: no new
   * calls or jobs; running calls and jobs get SHUTDOWN_GRACE_MS together; jobs still running then
   * are handed back to the queue for the next process; connections close; the process exits.
   */
  async serve(services: GrpcServiceBinding[]): Promise<RunningService> {
    await this.relay.start();
    const grpc = await startGrpcServer({ host: this.config.GRPC_HOST, port: this.config.GRPC_PORT, logger: this.logger, services });
    return {
      grpcPort: grpc.port,
      stop: async () => {
        const graceMs = this.config.SHUTDOWN_GRACE_MS;
        this.logger.info({ grace_ms: graceMs }, `${this.name} service stopping: no new calls or jobs, running ones get the grace period`);
        await this.relay.stop();
        const [, handedBack] = await Promise.all([grpc.shutdown(graceMs), this.queues.stopWorkers(graceMs)]);
        // A handed-back job may still hold a database connection (e.g. waiting for a lock), which
        // the pool would wait for: not worth waiting, it ends (and rolls back) with the process.
        const databaseWaitMs = handedBack > 0 ? 0 : CLOSE_WAIT_MS;
        const [queuesClosed, databaseClosed] = await Promise.all([
          withinMs(this.queues.close(), CLOSE_WAIT_MS),
          withinMs(this.database.close(), databaseWaitMs),
        ]);
        if (!queuesClosed || !databaseClosed) this.logger.warn('connections still busy after the grace period; they end with the process');
        this.logger.info({ handed_back_jobs: handedBack }, `${this.name} service stopped`);
        await closeLogger(this.logger);
      },
    };
  }
}
