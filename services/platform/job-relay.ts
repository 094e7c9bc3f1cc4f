import { withinMs } from './deadline';
import type { Logger } from './logger';
import type { JobDefinition, JobSnapshot, QueueKit } from './queue';

/**
 * One kind of outbox-driven work: committed to PostgreSQL first (the truth), then carried out by a
 * BullMQ job (Redis may lose it). Every service registers its kinds with the relay below, which
 * makes sure each piece of pending work has a live job, and that none stays pending forever.
 */
export interface OutboxJobKind<T> {
  /** The job that carries the work out; its job id is derived from the data, so queuing twice is harmless. */
  job: JobDefinition<T> & { jobId: (data: T) => string };
  /** Work committed and not finished yet, oldest first, at most `limit` items, as job data (ids). */
  findPending(limit: number): Promise<T[]>;
  /**
   * The work's job failed for good (or finished without doing it) and the relay has put it back as
   * often as it may: record the work as failed, with a reason a person can act on, so it is never
   * left pending. `reason` is BullMQ's, for the log only (it may hold internals).
   */
  giveUp(data: T, reason: string): Promise<void>;
}

/** A job that runs every `everyMs` (a BullMQ job scheduler), which the relay keeps in place. */
export interface RepeatingJob<T> {
  job: JobDefinition<T>;
  schedulerId: string;
  everyMs: number;
  payload: T;
}

/**
 * Other work a relay pass does, under the same triggers (the timer, Redis reconnecting) and only
 * while Redis is connected: the event outbox's relay (outbox/relay.ts) is one.
 */
export interface RelayParticipant {
  /** For the log. */
  name: string;
  /** One pass of its work; a failure is logged and the next pass tries again. */
  pass(): Promise<void>;
  /**
   * Told when the relay starts and stops (it may do work of its own between, e.g. after a commit).
   * The relay's stop waits (bounded) for what onStop returns: work of its own still running, which
   * should end before the service closes its connections.
   */
  onStart?(): void;
  onStop?(): void | Promise<void>;
}

export interface JobRelayOptions {
  /** How often a pass runs (RELAY_INTERVAL_MS); a pass also runs whenever Redis (re)connects. */
  intervalMs: number;
  /** How often failed work is put back before it is given up (RELAY_MAX_REQUEUES). */
  maxRequeues: number;
  logger: Logger;
}

/** Pending items one pass looks at per kind; older ones first, the rest in the next passes. */
const PASS_LIMIT = 1_000;
/** Job lookups in flight at once. */
const LOOKUP_CONCURRENCY = 32;
/** How long stop() waits for a pass that is running. */
const STOP_WAIT_MS = 5_000;

const FINISHED_STATES = new Set(['completed', 'failed', 'unknown']);

/**
 * The one relay between PostgreSQL and the queues, in every process that runs workers. Each pass:
 * - re-creates repeating schedules Redis no longer has (after it lost its data);
 * - queues pending work that has no job (lost with Redis, or never queued because Redis was down);
 * - puts back work whose job failed for good or finished without it (e.g. failed as stalled after
 *   its process died twice), with fresh attempts, up to `maxRequeues` times; then gives it up.
 * Passes run in-process on a timer and on every reconnection to Redis, so nothing depends on a
 * schedule that itself lives in Redis, and no restart is needed after Redis comes back.
 */
export class JobRelay {
  private readonly kinds: OutboxJobKind<unknown>[] = [];
  private readonly schedules: RepeatingJob<unknown>[] = [];
  private readonly participants: RelayParticipant[] = [];
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private pass: Promise<void> | undefined;
  private again = false;
  private started = false;

  constructor(
    private readonly queues: QueueKit,
    private readonly options: JobRelayOptions,
  ) {}

  register<T>(kind: OutboxJobKind<T>): void {
    this.kinds.push(kind as OutboxJobKind<unknown>);
  }

  repeat<T>(schedule: RepeatingJob<T>): void {
    this.schedules.push(schedule as RepeatingJob<unknown>);
  }

  participate(participant: RelayParticipant): void {
    this.participants.push(participant);
  }

  /** The queues of the jobs this relay queues work for or keeps on a schedule. */
  jobQueues(): string[] {
    return [...this.kinds, ...this.schedules].map(({ job }) => job.queue);
  }

  /** A first pass now (so schedules exist when this resolves), then on the timer and on reconnection. */
  async start(): Promise<void> {
    if (this.started || (this.kinds.length === 0 && this.schedules.length === 0 && this.participants.length === 0)) return;
    this.started = true;
    for (const participant of this.participants) participant.onStart?.();
    this.unsubscribe = this.queues.onReconnect(() => void this.runPass());
    await this.runPass();
    this.scheduleNext();
  }

  async stop(): Promise<void> {
    this.started = false;
    const stopping = this.participants.map((participant) =>
      Promise.resolve(participant.onStop?.()).catch((error: unknown) =>
        this.options.logger.warn({ err: error, participant: participant.name }, 'relay participant failed to stop'),
      ),
    );
    clearTimeout(this.timer);
    this.unsubscribe?.();
    await withinMs(Promise.all([this.pass, ...stopping]), STOP_WAIT_MS);
  }

  /** One pass; passes never overlap (asking during one runs another right after it). */
  runPass(): Promise<void> {
    if (this.pass) {
      this.again = true;
      return this.pass;
    }
    this.pass = (async () => {
      do {
        this.again = false;
        await this.passOnce();
      } while (this.again && this.started);
    })().finally(() => {
      this.pass = undefined;
    });
    return this.pass;
  }

  private scheduleNext(): void {
    if (!this.started) return;
    this.timer = setTimeout(() => {
      void this.runPass().finally(() => this.scheduleNext());
    }, this.options.intervalMs);
    this.timer.unref();
  }

  private async passOnce(): Promise<void> {
    // Redis away: nothing can be queued; the pass on reconnection does the work.
    if (!this.queues.isAvailable()) return;
    for (const schedule of this.schedules) {
      await this.keepSchedule(schedule).catch((error: unknown) =>
        this.options.logger.warn({ err: error, scheduler_id: schedule.schedulerId }, 'relay could not check a repeating job'),
      );
    }
    for (const kind of this.kinds) {
      await this.relay(kind).catch((error: unknown) =>
        this.options.logger.warn({ err: error, queue: kind.job.queue }, 'relay pass failed; the next pass retries'),
      );
    }
    for (const participant of this.participants) {
      await participant
        .pass()
        .catch((error: unknown) =>
          this.options.logger.warn({ err: error, participant: participant.name }, 'relay pass failed; the next pass retries'),
        );
    }
  }

  private async keepSchedule(schedule: RepeatingJob<unknown>): Promise<void> {
    if (await this.queues.hasSchedule(schedule.job, schedule.schedulerId)) return;
    await this.queues.repeat(schedule.job, schedule.schedulerId, schedule.everyMs, schedule.payload);
    this.options.logger.info({ scheduler_id: schedule.schedulerId, every_ms: schedule.everyMs }, 'repeating job scheduled');
  }

  private async relay<T>(kind: OutboxJobKind<T>): Promise<void> {
    const pending = await kind.findPending(PASS_LIMIT);
    if (pending.length === 0) return;
    const looked = await mapConcurrently(pending, LOOKUP_CONCURRENCY, async (data) => {
      const jobId = kind.job.jobId(data);
      return { data, jobId, job: await this.queues.inspect(kind.job, jobId) };
    });

    let queued = 0;
    for (const { data, job } of looked) {
      if (job) continue;
      await this.queues.enqueue(kind.job, data);
      queued += 1;
    }
    if (queued > 0) {
      this.options.logger.info({ queue: kind.job.queue, queued }, 'relay queued stored work that had no job (lost with Redis, or never queued)');
    }

    const finished = looked.filter(
      (item): item is typeof item & { job: JobSnapshot } => item.job !== undefined && FINISHED_STATES.has(item.job.state),
    );
    if (finished.length === 0) return;
    // Read again after looking at Redis: work whose job finished it just after the first read is no longer pending.
    const stillPending = new Set((await kind.findPending(PASS_LIMIT)).map((data) => kind.job.jobId(data)));
    for (const { data, jobId, job } of finished) {
      if (!stillPending.has(jobId)) continue;
      const reason = job.failedReason ?? `its job ended (${job.state}) without finishing the work`;
      if (job.requeues >= this.options.maxRequeues) {
        await kind.giveUp(data, reason);
        this.options.logger.error(
          { queue: kind.job.queue, job_id: jobId, reason, requeues: job.requeues },
          'relay gave up on work whose job kept failing',
        );
      } else if (await this.queues.requeue(kind.job, data, jobId, job.requeues + 1)) {
        this.options.logger.warn(
          { queue: kind.job.queue, job_id: jobId, reason, requeue: job.requeues + 1 },
          'relay re-queued work whose job failed',
        );
      }
    }
  }
}

async function mapConcurrently<T, R>(items: T[], concurrency: number, map: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += concurrency) {
    results.push(...(await Promise.all(items.slice(start, start + concurrency).map(map))));
  }
  return results;
}
