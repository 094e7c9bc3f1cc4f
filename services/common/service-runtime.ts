import type { Kysely, Migration } from 'kysely';
import { type Clock, systemClock } from './clock';
import { ensureDatabaseExists, openDatabase, type Database } from './db/database';
import { migrateToLatest } from './db/migrate';
import { type GrpcServiceBinding, startGrpcServer } from './grpc/server';
import type { RunningProcess } from './lifecycle';
import { createLogger, type Logger } from './logger';
import { QueueKit } from './queue';

/** The variables a service's runtime reads (baseEnv and serviceEnv in config.ts). */
export interface ServiceRuntimeConfig {
  DATABASE_URL: string;
  DB_POOL_MAX: number;
  REDIS_URL: string;
  QUEUE_PREFIX: string;
  LOG_LEVEL: string;
  GRPC_HOST: string;
  GRPC_PORT: number;
  SHUTDOWN_GRACE_MS: number;
}

/** What tests (and only tests) replace: time and where logs go. */
export interface ServiceOverrides {
  clock?: Clock;
  logger?: Logger;
}

export interface RunningService extends RunningProcess {
  grpcPort: number;
}

/**
 * What every service starts from: its logger and clock, its own schema migrated to the latest
 * version, and its queues. A service's composition root builds its domain on top and calls
 * `serve`; `stop` then undoes everything in order (gRPC first, so no call finds the rest closed).
 */
export class ServiceRuntime<DB> {
  private constructor(
    readonly name: string,
    readonly logger: Logger,
    readonly clock: Clock,
    private readonly database: Database<DB>,
    readonly queues: QueueKit,
    private readonly config: ServiceRuntimeConfig,
  ) {}

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
    const logger = options.overrides?.logger ?? createLogger({ service: name, level: config.LOG_LEVEL });
    const clock = options.overrides?.clock ?? systemClock;
    await ensureDatabaseExists(config.DATABASE_URL);
    const database = openDatabase<DB>({ url: config.DATABASE_URL, schema, poolMax: config.DB_POOL_MAX, applicationName: name, logger });
    await migrateToLatest(database.db, schema, options.migrations, logger);
    const queues = new QueueKit({ redisUrl: config.REDIS_URL, prefix: config.QUEUE_PREFIX, logger });
    await queues.ready();
    return new ServiceRuntime(name, logger, clock, database, queues, config);
  }

  async serve(services: GrpcServiceBinding[]): Promise<RunningService> {
    const grpc = await startGrpcServer({ host: this.config.GRPC_HOST, port: this.config.GRPC_PORT, logger: this.logger, services });
    return {
      grpcPort: grpc.port,
      stop: async () => {
        await grpc.shutdown(this.config.SHUTDOWN_GRACE_MS);
        await this.queues.close();
        await this.database.close();
        this.logger.info(`${this.name} service stopped`);
        this.logger.flush();
      },
    };
  }
}
