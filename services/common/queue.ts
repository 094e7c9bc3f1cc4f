import { type Job, type JobsOptions, Queue, QueueEvents, UnrecoverableError, Worker } from 'bullmq';
import IORedis from 'ioredis';
import type { z } from 'zod';
import type { Logger } from './logger';
import { currentRequestId, isValidRequestId, runWithRequestContext } from './request-context';

/**
 * A kind of job: the queue it runs on and the shape of its data. Data carries ids, not copies
 * of rows; PostgreSQL stays the truth and every processor is idempotent (delivery is
 * at-least-once).
 */
export interface JobDefinition<T> {
  queue: string;
  data: z.ZodType<T>;
  options?: JobsOptions;
}

export type JobProcessor<T> = (data: T, job: Job) => Promise<unknown>;

interface Envelope {
  payload: unknown;
  requestId?: string;
}

export interface QueueKitOptions {
  redisUrl: string;
  prefix: string;
  logger: Logger;
}

/** Production defaults from BullMQ's guide: bounded retries with jittered backoff, bounded history. */
const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 },
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

/** The one BullMQ factory: queues, workers and queue events share connections and a key prefix. */
export class QueueKit {
  // Producers fail fast when Redis is away instead of buffering forever.
  private readonly producerConnection: IORedis;
  // Workers must never give up on a command (BullMQ requirement for blocking connections).
  private readonly workerConnection: IORedis;
  private readonly queues = new Map<string, Queue>();
  private readonly events = new Map<string, QueueEvents>();
  private readonly workers: Worker[] = [];

  constructor(private readonly options: QueueKitOptions) {
    this.producerConnection = new IORedis(options.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 3 });
    this.workerConnection = new IORedis(options.redisUrl, { maxRetriesPerRequest: null });
    for (const connection of [this.producerConnection, this.workerConnection]) {
      connection.on('error', (error) => options.logger.warn({ err: error }, 'redis connection error'));
    }
  }

  queue(name: string): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, {
        connection: this.producerConnection,
        prefix: this.options.prefix,
        defaultJobOptions: DEFAULT_JOB_OPTIONS,
      });
      queue.on('error', (error) => this.options.logger.warn({ err: error, queue: name }, 'queue error'));
      this.queues.set(name, queue);
    }
    return queue;
  }

  /** Resolves once Redis answers, so the first enqueue of a fresh process does not fail. */
  async ready(): Promise<void> {
    if (this.producerConnection.status !== 'ready') {
      await new Promise<void>((resolve, reject) => {
        this.producerConnection.once('ready', resolve);
        this.producerConnection.once('end', () => reject(new Error('redis connection ended')));
      });
    }
  }

  /** Adds a job; a deterministic jobId makes a duplicate add a no-op. */
  async enqueue<T>(definition: JobDefinition<T>, payload: T, options: JobsOptions = {}): Promise<Job> {
    const requestId = currentRequestId();
    const envelope: Envelope = requestId ? { payload, requestId } : { payload };
    return this.queue(definition.queue).add(definition.queue, envelope, { ...definition.options, ...options });
  }

  /**
   * Runs a job every `everyMs` (a BullMQ job scheduler). Upserting by id makes restarts and several
   * replicas harmless: there is one schedule, whoever wrote it last.
   */
  async repeat<T>(definition: JobDefinition<T>, schedulerId: string, everyMs: number, payload: T): Promise<void> {
    const envelope: Envelope = { payload };
    await this.queue(definition.queue).upsertJobScheduler(schedulerId, { every: everyMs }, { name: definition.queue, data: envelope });
  }

  queueEvents(name: string): QueueEvents {
    let events = this.events.get(name);
    if (!events) {
      events = new QueueEvents(name, { connection: this.workerConnection, prefix: this.options.prefix });
      events.on('error', (error) => this.options.logger.warn({ err: error, queue: name }, 'queue events error'));
      this.events.set(name, events);
    }
    return events;
  }

  /** Starts a worker; bad job data fails once (UnrecoverableError) instead of being retried. */
  process<T>(definition: JobDefinition<T>, processor: JobProcessor<T>, concurrency = 1): Worker {
    const logger = this.options.logger;
    const worker = new Worker(
      definition.queue,
      async (job: Job) => {
        const envelope = job.data as Partial<Envelope> | undefined;
        const requestId = isValidRequestId(envelope?.requestId) ? envelope.requestId : `job:${job.id}`;
        return runWithRequestContext({ requestId }, async () => {
          const parsed = definition.data.safeParse(envelope?.payload);
          if (!parsed.success) throw new UnrecoverableError(`invalid job data: ${parsed.error.message}`);
          return processor(parsed.data, job);
        });
      },
      { connection: this.workerConnection, prefix: this.options.prefix, concurrency },
    );
    worker.on('failed', (job, error) =>
      logger.warn({ err: error, queue: definition.queue, job_id: job?.id, attempt: job?.attemptsMade }, 'job failed'),
    );
    worker.on('error', (error) => logger.warn({ err: error, queue: definition.queue }, 'worker error'));
    this.workers.push(worker);
    return worker;
  }

  /** Graceful: workers finish their running jobs first, then everything disconnects. */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.close()));
    await Promise.all([...this.events.values()].map((events) => events.close()));
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    await Promise.all([this.producerConnection.quit().catch(() => undefined), this.workerConnection.quit().catch(() => undefined)]);
  }
}
