import { type Job, type JobsOptions, Queue, QueueEvents, UnrecoverableError, Worker } from 'bullmq';
import { hostname } from 'node:os';
import IORedis from 'ioredis';
import type { z } from 'zod';
import { withinMs } from './deadline';
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
  /**
   * The job id for this data, where one piece of work must be one job: adding it twice is a
   * no-op, and the relay (job-relay.ts) finds the job of any stored work by it.
   */
  jobId?: (data: T) => string;
}

/**
 * Runs one job. `signal` aborts when the job is handed back at shutdown (another process will
 * run it again): from then on the processor must not record an outcome such as "failed".
 */
export type JobProcessor<T> = (data: T, job: Job, signal: AbortSignal) => Promise<unknown>;

interface Envelope {
  payload: unknown;
  requestId?: string;
  /** How often the relay has put this work back after its job failed or finished without it. */
  requeues?: number;
}

/** BullMQ's worker timing (configuration: WORKER_LOCK_DURATION_MS, WORKER_STALLED_INTERVAL_MS). */
export interface WorkerTiming {
  /** A running job's lock; a job whose lock lapses (its process died) is taken back as stalled. */
  lockDurationMs: number;
  /** How often workers look for stalled jobs. */
  stalledIntervalMs: number;
}

export interface QueueKitOptions {
  redisUrl: string;
  prefix: string;
  logger: Logger;
  worker?: WorkerTiming;
}

/** What the relay needs to know about the job of one piece of stored work. */
export interface JobSnapshot {
  state: string;
  failedReason: string | undefined;
  requeues: number;
}

/** Production defaults from BullMQ's guide: bounded retries with jittered backoff, bounded history. */
const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 },
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

/** This process, as BullMQ records it on the jobs it runs: host and pid. */
const WORKER_NAME = `${hostname()}:${process.pid}`;

const DEFAULT_WORKER_TIMING: WorkerTiming = { lockDurationMs: 30_000, stalledIntervalMs: 30_000 };

/** After handing jobs back, how long the workers get to notice and close. */
const HAND_BACK_SETTLE_MS = 2_000;

/** A job this process is running, and how to give it back. */
interface RunningJob {
  job: Job;
  token: string | undefined;
  abort: AbortController;
}

class HandedBackError extends Error {
  constructor(jobId: string | undefined) {
    super(`job ${jobId} was handed back at shutdown`);
  }
}

/** The one BullMQ factory: queues, workers and queue events share connections and a key prefix. */
export class QueueKit {
  // Producers fail fast when Redis is away (no offline queue) instead of waiting for it to return.
  private readonly producerConnection: IORedis;
  // Workers must never give up on a command (BullMQ requirement for blocking connections).
  private readonly workerConnection: IORedis;
  private readonly queues = new Map<string, Queue>();
  private readonly events = new Map<string, QueueEvents>();
  private readonly workers: Worker[] = [];
  private readonly running = new Set<RunningJob>();

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

  /** Whether Redis is connected now: if not, an enqueue fails at once. */
  isAvailable(): boolean {
    return this.producerConnection.status === 'ready';
  }

  /** Calls `listener` every time the connection to Redis is (re)established. */
  onReconnect(listener: () => void): () => void {
    this.producerConnection.on('ready', listener);
    return () => this.producerConnection.off('ready', listener);
  }

  /** Adds a job; a deterministic job id (the definition's, or options.jobId) makes a duplicate add a no-op. */
  async enqueue<T>(definition: JobDefinition<T>, payload: T, options: JobsOptions = {}): Promise<Job> {
    const requestId = currentRequestId();
    const envelope: Envelope = requestId ? { payload, requestId } : { payload };
    const jobId = options.jobId ?? definition.jobId?.(payload);
    return this.queue(definition.queue).add(definition.queue, envelope, { ...definition.options, ...options, ...(jobId ? { jobId } : {}) });
  }

  /**
   * Adds many jobs of one kind in one round trip (BullMQ addBulk); each keeps its deterministic job
   * id, so a job already there is left as it is.
   */
  async enqueueMany<T>(definition: JobDefinition<T>, payloads: readonly T[]): Promise<void> {
    if (payloads.length === 0) return;
    const requestId = currentRequestId();
    await this.queue(definition.queue).addBulk(
      payloads.map((payload) => {
        const jobId = definition.jobId?.(payload);
        const envelope: Envelope = requestId ? { payload, requestId } : { payload };
        return { name: definition.queue, data: envelope, opts: { ...definition.options, ...(jobId ? { jobId } : {}) } };
      }),
    );
  }

  /**
   * The payloads of jobs that failed for good, oldest first, at most `limit` (for the relay, which
   * puts them back or gives them up).
   */
  async failedPayloads<T>(definition: JobDefinition<T>, limit: number): Promise<T[]> {
    const jobs = await this.queue(definition.queue).getFailed(0, Math.max(0, limit - 1));
    return jobs.flatMap((job) => {
      const parsed = definition.data.safeParse((job?.data as Partial<Envelope> | undefined)?.payload);
      return parsed.success ? [parsed.data] : [];
    });
  }

  /** Removes a job that is not running (true when it is gone). */
  async remove<T>(definition: JobDefinition<T>, jobId: string): Promise<boolean> {
    const queue = this.queue(definition.queue);
    if (!(await queue.getJob(jobId))) return true;
    return (await queue.remove(jobId)) === 1;
  }

  /**
   * Markers tell whether Redis still holds what it was given: a marker set once and found missing
   * later means Redis lost its data (restarted empty, flushed) in between.
   */
  async hasMarker(name: string): Promise<boolean> {
    return (await this.producerConnection.exists(this.markerKey(name))) === 1;
  }

  async setMarker(name: string, value: string): Promise<void> {
    await this.producerConnection.set(this.markerKey(name), value);
  }

  /** The job with this id, if Redis has it: its state, why it failed, how often the relay re-queued it. */
  async inspect<T>(definition: JobDefinition<T>, jobId: string): Promise<JobSnapshot | undefined> {
    const job = await this.queue(definition.queue).getJob(jobId);
    if (!job) return undefined;
    const envelope = job.data as Partial<Envelope> | undefined;
    return {
      state: await job.getState(),
      failedReason: job.failedReason || undefined,
      requeues: typeof envelope?.requeues === 'number' ? envelope.requeues : 0,
    };
  }

  /**
   * Replaces a finished job by a fresh one with the same id (fresh attempts and stall count;
   * BullMQ's own retry keeps the stall count, so a job failed as stalled would fail again at once).
   * False when the job is running somewhere (locked): then it is not ours to replace.
   */
  async requeue<T>(definition: JobDefinition<T>, payload: T, jobId: string, requeues: number): Promise<boolean> {
    const queue = this.queue(definition.queue);
    const job = await queue.getJob(jobId);
    if (job && (await queue.remove(jobId)) === 0) return false;
    const envelope: Envelope = { payload, requeues };
    await queue.add(definition.queue, envelope, { ...definition.options, jobId });
    return true;
  }

  /**
   * Runs a job every `everyMs` (a BullMQ job scheduler). Upserting by id makes restarts and several
   * replicas harmless: there is one schedule, whoever wrote it last.
   */
  async repeat<T>(definition: JobDefinition<T>, schedulerId: string, everyMs: number, payload: T): Promise<void> {
    const envelope: Envelope = { payload };
    await this.queue(definition.queue).upsertJobScheduler(schedulerId, { every: everyMs }, { name: definition.queue, data: envelope });
  }

  /** Whether Redis holds this job scheduler (it does not after Redis lost its data). */
  async hasSchedule<T>(definition: JobDefinition<T>, schedulerId: string): Promise<boolean> {
    return (await this.queue(definition.queue).getJobScheduler(schedulerId)) !== undefined;
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
    const timing = this.options.worker ?? DEFAULT_WORKER_TIMING;
    const worker = new Worker(
      definition.queue,
      async (job: Job, token?: string) => {
        const envelope = job.data as Partial<Envelope> | undefined;
        const requestId = isValidRequestId(envelope?.requestId) ? envelope.requestId : `job:${job.id}`;
        const running: RunningJob = { job, token, abort: new AbortController() };
        this.running.add(running);
        try {
          return await runWithRequestContext({ requestId }, async () => {
            const parsed = definition.data.safeParse(envelope?.payload);
            if (!parsed.success) throw new UnrecoverableError(`invalid job data: ${parsed.error.message}`);
            // Handed back at shutdown: stop waiting for the processor, whose work another process redoes.
            return Promise.race([processor(parsed.data, job, running.abort.signal), rejectOnAbort(running.abort.signal, job)]);
          });
        } finally {
          this.running.delete(running);
        }
      },
      {
        connection: this.workerConnection,
        prefix: this.options.prefix,
        // Stored on every job it runs (`processedBy`): which replica ran a job, where several share a queue.
        name: WORKER_NAME,
        concurrency,
        lockDuration: timing.lockDurationMs,
        stalledInterval: timing.stalledIntervalMs,
        // A job whose process died twice while running it fails; the relay decides what happens next.
        maxStalledCount: 1,
      },
    );
    worker.on('failed', (job, error) => {
      if (error instanceof HandedBackError) return;
      logger.warn({ err: error, queue: definition.queue, job_id: job?.id, attempt: job?.attemptsMade }, 'job failed');
    });
    worker.on('error', (error) => logger.warn({ err: error, queue: definition.queue }, 'worker error'));
    this.workers.push(worker);
    return worker;
  }

  /**
   * Shutdown, first step: workers take no new jobs and get `graceMs` to finish the running ones.
   * Jobs still running then are handed back (moved back to waiting, lock released) so the next
   * process picks them up at once, and this process stops waiting for them. Returns how many.
   */
  async stopWorkers(graceMs: number): Promise<number> {
    if (this.workers.length === 0) return 0;
    const closed = Promise.all(this.workers.map((worker) => worker.close()));
    if (await withinMs(closed, graceMs)) return 0;
    const handedBack = await this.handBackRunningJobs();
    await withinMs(closed, HAND_BACK_SETTLE_MS);
    return handedBack;
  }

  /** Then everything disconnects (workers first, if stopWorkers was not called). */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.close()));
    await Promise.all([...this.events.values()].map((events) => events.close()));
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    await Promise.all([this.producerConnection.quit().catch(() => undefined), this.workerConnection.quit().catch(() => undefined)]);
  }

  private markerKey(name: string): string {
    return `${this.options.prefix}:marker:${name}`;
  }

  private async handBackRunningJobs(): Promise<number> {
    let handedBack = 0;
    for (const running of [...this.running]) {
      const { job, token } = running;
      try {
        if (token) {
          await job.moveToWait(token);
          handedBack += 1;
          this.options.logger.warn(
            { queue: job.queueName, job_id: job.id },
            'job still running after the shutdown grace period; handed back to the queue',
          );
        }
      } catch (error) {
        // Redis is away or the lock is gone: the lock lapses and another worker takes the job back as stalled.
        this.options.logger.warn({ err: error, queue: job.queueName, job_id: job.id }, 'could not hand a job back; it will be recovered as stalled');
      }
      running.abort.abort();
    }
    return handedBack;
  }
}

function rejectOnAbort(signal: AbortSignal, job: Job): Promise<never> {
  return new Promise<never>((_resolve, reject) => {
    signal.addEventListener('abort', () => reject(new HandedBackError(job.id)), { once: true });
  });
}
