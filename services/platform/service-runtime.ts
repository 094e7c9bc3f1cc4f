import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import type { Kysely, Migration } from 'kysely';
import { type Clock, systemClock } from './clock';
import { ConfigError } from './config';
import { ensureDatabaseExists, openDatabase, type Database } from './db/database';
import { migrateToLatest } from './db/migrate';
import { withinMs } from './deadline';
import type { BoundGrpcServer } from './grpc/server';
import { JobRelay } from './job-relay';
import type { RunningProcess } from './lifecycle';
import { closeLogger, type LogFormat, type Logger } from './logger';
import { type JobDefinition, type JobProcessor, QueueKit } from './queue';
import type { CatalogEntry } from './service-catalog';

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
  RUN_WORKERS: boolean;
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

/** A job as a manifest lists it: its queue names it. */
export type DeclaredJob = Pick<JobDefinition<unknown>, 'queue'>;

/**
 * A service whose parts do not match its manifest (a job with no processor, or two): it would fail
 * the same way on every restart, so, like a configuration error, it stops start-up for good.
 */
export class ManifestError extends ConfigError {
  override readonly name = 'ManifestError';
}

/** After the grace period, how long closing connections may take. */
const CLOSE_WAIT_MS = 3_000;

interface RegisteredProcessor {
  job: JobDefinition<unknown>;
  processor: JobProcessor<unknown>;
  concurrency: number;
}

/**
 * What every service starts from: its logger and clock, its own schema migrated to the latest
 * version, its queues and the job relay. A service's composition root builds its domain on top,
 * gives each job of its manifest its processor (`process`) and its outbox work to the relay; then
 * `serve` checks that every job has exactly one processor and starts the workers, the relay and the
 * gRPC server; `stop` undoes everything in order.
 */
export class ServiceRuntime<DB> {
  readonly relay: JobRelay;
  private readonly processors = new Map<string, RegisteredProcessor>();
  private readonly closers: Array<() => void | Promise<void>> = [];

  private constructor(
    readonly name: string,
    readonly logger: Logger,
    readonly clock: Clock,
    private readonly database: Database<DB>,
    readonly queues: QueueKit,
    private readonly config: ServiceRuntimeConfig,
    private readonly jobs: readonly DeclaredJob[],
  ) {
    this.relay = new JobRelay(queues, { intervalMs: config.RELAY_INTERVAL_MS, maxRequeues: config.RELAY_MAX_REQUEUES, logger });
  }

  get db(): Kysely<DB> {
    return this.database.db;
  }

  static async start<DB>(options: {
    service: Pick<CatalogEntry, 'name' | 'schema'>;
    migrations: Record<string, Migration>;
    /** Every job the service runs (its manifest's): each must get exactly one processor. */
    jobs: readonly DeclaredJob[];
    config: ServiceRuntimeConfig;
    logger: Logger;
    clock?: Clock;
  }): Promise<ServiceRuntime<DB>> {
    const {
      service: { name, schema },
      config,
      logger,
    } = options;
    const repeated = options.jobs.find((job, index) => options.jobs.findIndex((other) => other.queue === job.queue) !== index);
    if (repeated) throw new ManifestError(`the ${name} service's manifest lists job ${repeated.queue} twice`);
    const clock = options.clock ?? systemClock;
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
    return new ServiceRuntime(name, logger, clock, database, queues, config, options.jobs);
  }

  /**
   * Gives a job of the manifest its processor. The worker starts with `serve`, and only where
   * RUN_WORKERS is on; the check that each job has one processor holds either way.
   */
  process<T>(job: JobDefinition<T>, processor: JobProcessor<T>, concurrency = 1): void {
    if (!this.jobs.some((declared) => declared.queue === job.queue)) {
      throw new ManifestError(
        `the ${this.name} service registers a processor for job ${job.queue}, which its manifest does not list (services/${this.name}/manifest.ts)`,
      );
    }
    if (this.processors.has(job.queue)) {
      throw new ManifestError(`the ${this.name} service's job ${job.queue} has two processors: register one`);
    }
    this.processors.set(job.queue, { job, processor, concurrency } as RegisteredProcessor);
  }

  /**
   * Something the composition root opened beside the runtime's own connections (a gRPC client of
   * another service): closed when the service stops, once its calls and jobs are done.
   */
  closeOnStop(close: () => void | Promise<void>): void {
    this.closers.push(close);
  }

  /**
   * Starts the relay (if jobs were registered) and serves the gRPC implementations on the server
   * bound before this runtime started (startService). `stop`, on SIGTERM: no new calls or jobs;
   * running calls and jobs get SHUTDOWN_GRACE_MS together; jobs still running then are handed back
   * to the queue for the next process; connections close; the process exits.
   */
  async serve(grpc: BoundGrpcServer, implementations: Record<string, UntypedServiceImplementation>): Promise<RunningService> {
    this.checkProcessors();
    if (this.config.RUN_WORKERS) {
      for (const { job, processor, concurrency } of this.processors.values()) this.queues.process(job, processor, concurrency);
      await this.relay.start();
    }
    grpc.serve(implementations);
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
        await this.closeOwned();
        if (!queuesClosed || !databaseClosed) this.logger.warn('connections still busy after the grace period; they end with the process');
        this.logger.info({ handed_back_jobs: handedBack }, `${this.name} service stopped`);
        await closeLogger(this.logger);
      },
    };
  }

  /** Undoes `start` when the service cannot go on to `serve` (its composition failed). */
  async close(): Promise<void> {
    await this.relay.stop();
    await Promise.all([withinMs(this.queues.close(), CLOSE_WAIT_MS), withinMs(this.database.close(), CLOSE_WAIT_MS)]);
    await this.closeOwned();
  }

  private async closeOwned(): Promise<void> {
    for (const close of this.closers.splice(0)) {
      await withinMs(Promise.resolve().then(close), CLOSE_WAIT_MS).catch((error: unknown) =>
        this.logger.warn({ err: error }, 'closing a connection failed'),
      );
    }
  }

  /** Every job of the manifest has a processor, and the relay keeps work only for jobs of the manifest. */
  private checkProcessors(): void {
    const missing = this.jobs.filter((job) => !this.processors.has(job.queue)).map((job) => job.queue);
    if (missing.length > 0) {
      throw new ManifestError(
        `the ${this.name} service's job${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ha${missing.length > 1 ? 've' : 's'} no processor: register one in its composition root (runtime.process)`,
      );
    }
    const unlisted = this.relay.jobQueues().filter((queue) => !this.jobs.some((job) => job.queue === queue));
    if (unlisted.length > 0) {
      throw new ManifestError(
        `the ${this.name} service's job relay keeps work for ${unlisted.join(', ')}, which its manifest does not list (services/${this.name}/manifest.ts)`,
      );
    }
  }
}
