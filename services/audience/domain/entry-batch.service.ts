import { createHash, randomUUID } from 'node:crypto';
import type { Clock } from '../../platform/clock';
import type { OutboxWaker } from '../../platform/outbox/relay';
import { MAX_BATCH_ENTRIES, MAX_BATCH_WAIT_MS } from '../../rules/contract-limits';
import { isStatementTimeout } from '../../platform/db/errors';
import type { Deadline } from '../../platform/deadline';
import { AlreadyExistsError, InvalidArgumentError, MAX_LISTED_VIOLATIONS, NotFoundError, UnavailableError } from '../../rules/errors';
import { checkIdentifiers, type UserIdentifier } from '../../rules/identifiers';
import { isUuid } from '../../rules/ids';
import type { Logger } from '../../platform/logger';
import type { ApplyOutcome, EntryBatchRecord, EntryBatchRepository, NewEntryBatch } from '../repositories/entry-batch.repository';
import type { SegmentRepository } from '../repositories/segment.repository';
import { requireSegmentExists, segmentNotFound } from './segment-lookup';
import { BATCH_FINISHED } from './vocabulary';

const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** Below this much time left before the caller's deadline, storing a batch is not even tried. */
const MIN_STORE_MS = 100;
/** Longest a stored batch waits to be handed to the queue within a request (the relay queues it otherwise). */
const MAX_SCHEDULE_MS = 2_000;
/** What a failed batch says (the internal reason goes to the log). */
const FAILED_REASON = 'the batch could not be applied; submit it again';

/** How batches reach the worker; implemented over BullMQ in ../jobs. */
export interface EntryBatchScheduler {
  /** Whether the queue can take a batch now (Redis connected). */
  isAvailable(): boolean;
  /** Queues the batch within `timeoutMs`; false when it could not (the relay queues it later). */
  schedule(batchId: string, timeoutMs: number): Promise<boolean>;
  /** Resolves when the batch has finished or `timeoutMs` has passed, whichever is first. */
  waitUntilSettled(batchId: string, timeoutMs: number): Promise<void>;
}

/** How long a request may take, and how long it wants to wait for its batch (`?wait=true`). */
export interface BatchRequestTiming {
  /** The caller's deadline, less room for the answer: nothing is stored after it. */
  deadline: Deadline;
  waitMs: number;
}

export interface BatchEntryInput {
  identifier: string;
  identifierType: string;
}

export class EntryBatchService {
  constructor(
    private readonly segments: SegmentRepository,
    private readonly batches: EntryBatchRepository,
    private readonly scheduler: EntryBatchScheduler,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly outbox: OutboxWaker,
  ) {}

  /**
   * Validates the whole batch before writing anything, stores it, and queues it. A retry with
   * the same idempotency key returns the batch the first request created.
   *
   * Every answer tells the truth about what was stored: with the queue down, or when storing
   * cannot finish before the caller's deadline (e.g. the segment is locked by other work), nothing
   * is stored and the answer is UNAVAILABLE. A batch that is stored is answered with its job, even
   * if Redis went away in between: the relay queues it once Redis is back.
   */
  async submit(
    projectId: string,
    segmentId: string,
    input: BatchEntryInput[],
    idempotencyKey: string | undefined,
    timing: BatchRequestTiming,
  ): Promise<{ batch: EntryBatchRecord; created: boolean }> {
    if (input.length > MAX_BATCH_ENTRIES) {
      throw new InvalidArgumentError('BATCH_TOO_LARGE', `a batch holds at most ${MAX_BATCH_ENTRIES} entries`, [
        { field: 'entries', reason: `has ${input.length} entries; the limit is ${MAX_BATCH_ENTRIES}` },
      ]);
    }
    if (input.length === 0) {
      throw new InvalidArgumentError('VALIDATION_FAILED', 'entries must not be empty', [{ field: 'entries', reason: 'must not be empty' }]);
    }
    if (idempotencyKey !== undefined && (idempotencyKey.length === 0 || idempotencyKey.length > MAX_IDEMPOTENCY_KEY_LENGTH)) {
      throw new InvalidArgumentError('VALIDATION_FAILED', `the idempotency key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`, [
        { field: 'Idempotency-Key', reason: `must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters` },
      ]);
    }
    const entries = normalizeBatch(input);
    const hash = requestHash(segmentId, entries);
    if (!this.scheduler.isAvailable()) {
      throw new UnavailableError('QUEUE_UNAVAILABLE', 'the batch queue is unavailable, so nothing was stored; send the batch again in a few seconds');
    }
    await requireSegmentExists(this.segments, projectId, segmentId);

    const stored = await this.store(
      { id: randomUUID(), projectId, segmentId, idempotencyKey: idempotencyKey ?? null, requestHash: hash, entries, now: this.clock.now() },
      timing.deadline,
    );
    if (!stored) throw segmentNotFound();
    if (!stored.created && stored.record.requestHash !== hash) {
      throw new AlreadyExistsError(
        'IDEMPOTENCY_KEY_REUSED',
        'this Idempotency-Key was already used for a different request; use a new key for new work',
      );
    }
    const queued = stored.created ? await this.scheduleSafely(stored.record.id, timing.deadline) : true;
    // Waiting is pointless for a batch the queue did not take: it runs once the relay has queued it.
    const waitMs = queued ? Math.min(timing.waitMs, timing.deadline.remainingMs()) : 0;
    const batch = waitMs > 0 ? await this.settled(stored.record, waitMs) : stored.record;
    return { batch, created: stored.created };
  }

  async get(projectId: string, segmentId: string, batchId: string, waitMs: number): Promise<EntryBatchRecord> {
    const batch = isUuid(segmentId) && isUuid(batchId) ? await this.batches.findById(projectId, segmentId, batchId) : undefined;
    if (!batch) throw new NotFoundError('BATCH_JOB_NOT_FOUND', 'no batch job with this id for this audience');
    return waitMs > 0 ? this.settled(batch, waitMs) : batch;
  }

  /** The worker's step: idempotent, so a redelivered job changes nothing. */
  async apply(batchId: string): Promise<ApplyOutcome> {
    await this.batches.markActive(batchId, this.clock.now());
    const outcome = await this.batches.apply(batchId, this.clock.now());
    if (outcome.applied) {
      this.logger.info({ batch_id: batchId, added: outcome.added }, 'entry batch applied');
      if (outcome.added > 0) this.outbox.wake();
    }
    return outcome;
  }

  /** The batch will not be applied: it shows as failed, with a reason the caller can act on. */
  async fail(batchId: string): Promise<void> {
    await this.batches.markFailed(batchId, FAILED_REASON, this.clock.now());
  }

  /** Stored batches not finished yet, oldest first: the relay makes sure each has a job. */
  unfinished(limit: number): Promise<string[]> {
    return this.batches.findUnfinished(limit);
  }

  private async settled(batch: EntryBatchRecord, waitMs: number): Promise<EntryBatchRecord> {
    if (BATCH_FINISHED[batch.status]) return batch;
    await this.scheduler.waitUntilSettled(batch.id, Math.min(waitMs, MAX_BATCH_WAIT_MS));
    return (await this.batches.findById(batch.projectId, batch.segmentId, batch.id)) ?? batch;
  }

  /** Stores the batch, or nothing if that cannot finish before the deadline (a lock held by other work). */
  private async store(batch: NewEntryBatch, deadline: Deadline): Promise<{ record: EntryBatchRecord; created: boolean } | undefined> {
    const budgetMs = deadline.remainingMs();
    const busy = () =>
      new UnavailableError(
        'AUDIENCE_BUSY',
        'the audience is busy with other work and the batch could not be stored in time, so nothing was stored; send it again in a few seconds',
      );
    if (budgetMs < MIN_STORE_MS) throw busy();
    try {
      return await this.batches.create(batch, budgetMs);
    } catch (error) {
      if (isStatementTimeout(error)) throw busy();
      throw error;
    }
  }

  /** The batch is safe in PostgreSQL; if Redis refuses it now, the relay queues it once Redis is back. */
  private async scheduleSafely(batchId: string, deadline: Deadline): Promise<boolean> {
    try {
      const queued = await this.scheduler.schedule(batchId, Math.min(MAX_SCHEDULE_MS, deadline.remainingMs()));
      if (!queued) this.logger.warn({ batch_id: batchId }, 'entry batch stored but not queued in time; the relay will queue it');
      return queued;
    } catch (error) {
      this.logger.warn({ err: error, batch_id: batchId }, 'entry batch stored but not queued; the relay will queue it');
      return false;
    }
  }
}

/** Every entry in its canonical form, or the whole batch refused naming the invalid ones. */
function normalizeBatch(input: BatchEntryInput[]): UserIdentifier[] {
  const checked = checkIdentifiers(input, 'entries');
  if (checked.users) return checked.users;
  const listed = checked.invalid > MAX_LISTED_VIOLATIONS ? ` (the first ${MAX_LISTED_VIOLATIONS} are listed)` : '';
  throw new InvalidArgumentError(
    'INVALID_BATCH',
    `${checked.invalid} of ${input.length} entries are invalid${listed}; nothing was written`,
    checked.violations,
  );
}

function requestHash(segmentId: string, entries: UserIdentifier[]): string {
  const hash = createHash('sha256').update(segmentId);
  for (const entry of entries) hash.update(`\n${entry.identifierType}:${entry.identifier}`);
  return hash.digest('hex');
}
