import { createHash, randomUUID } from 'node:crypto';
import type { Clock } from '../../common/clock';
import { AlreadyExistsError, type FieldViolation, InvalidArgumentError, NotFoundError } from '../../common/errors';
import { canonical, type IdentifierType, identifierViolations, type UserIdentifier } from '../../common/identifiers';
import { isUuid } from '../../common/ids';
import type { Logger } from '../../common/logger';
import type { ApplyOutcome, EntryBatchRecord, EntryBatchRepository } from '../repositories/entry-batch.repository';
import type { SegmentRepository } from '../repositories/segment.repository';
import { requireSegmentExists, segmentNotFound } from './segment-lookup';

/** Entries one batch request may carry (the gateway answers 413 above this). */
export const MAX_BATCH_ENTRIES = 10_000;
/** Longest a caller may ask to wait for its batch. */
export const MAX_WAIT_MS = 30_000;
/** Violations listed in one error; the message still counts them all. */
const MAX_LISTED_VIOLATIONS = 100;
const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** How batches reach the worker; implemented over BullMQ in ../jobs. */
export interface EntryBatchScheduler {
  schedule(batchId: string): Promise<void>;
  /** Resolves when the batch has finished or `timeoutMs` has passed, whichever is first. */
  waitUntilSettled(batchId: string, timeoutMs: number): Promise<void>;
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
  ) {}

  /**
   * Validates the whole batch before writing anything, stores it, and queues it. A retry with
   * the same idempotency key returns the batch the first request created.
   */
  async submit(
    projectId: string,
    segmentId: string,
    input: BatchEntryInput[],
    idempotencyKey: string | undefined,
    waitMs: number,
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
    await requireSegmentExists(this.segments, projectId, segmentId);

    const stored = await this.batches.create({
      id: randomUUID(),
      projectId,
      segmentId,
      idempotencyKey: idempotencyKey ?? null,
      requestHash: hash,
      entries,
      now: this.clock.now(),
    });
    if (!stored) throw segmentNotFound();
    if (!stored.created && stored.record.requestHash !== hash) {
      throw new AlreadyExistsError(
        'IDEMPOTENCY_KEY_REUSED',
        'this Idempotency-Key was already used for a different request; use a new key for new work',
      );
    }
    if (stored.created) await this.scheduleSafely(stored.record.id);
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
    if (outcome.applied) this.logger.info({ batch_id: batchId, added: outcome.added }, 'entry batch applied');
    return outcome;
  }

  async fail(batchId: string, reason: string): Promise<void> {
    await this.batches.markFailed(batchId, reason, this.clock.now());
  }

  /** Re-queues batches whose job Redis may have lost; the deterministic job id prevents doubles. */
  async requeueStale(olderThanMs: number): Promise<number> {
    const ids = await this.batches.findUnfinishedBefore(new Date(this.clock.now().getTime() - olderThanMs), 1_000);
    for (const id of ids) await this.scheduler.schedule(id);
    return ids.length;
  }

  private async settled(batch: EntryBatchRecord, waitMs: number): Promise<EntryBatchRecord> {
    if (batch.status === 'completed' || batch.status === 'failed') return batch;
    await this.scheduler.waitUntilSettled(batch.id, Math.min(waitMs, MAX_WAIT_MS));
    return (await this.batches.findById(batch.projectId, batch.segmentId, batch.id)) ?? batch;
  }

  /** The batch is safe in PostgreSQL; if Redis refuses it now, the stale-batch relay queues it later. */
  private async scheduleSafely(batchId: string): Promise<void> {
    try {
      await this.scheduler.schedule(batchId);
    } catch (error) {
      this.logger.warn({ err: error, batch_id: batchId }, 'could not queue entry batch; the relay will retry');
    }
  }
}

function normalizeBatch(input: BatchEntryInput[]): UserIdentifier[] {
  const violations: FieldViolation[] = [];
  let invalid = 0;
  const entries = input.map((entry, index) => {
    const problems = identifierViolations(entry.identifier, entry.identifierType, `entries[${index}]`);
    if (problems.length > 0) {
      invalid += 1;
      if (violations.length < MAX_LISTED_VIOLATIONS) violations.push(...problems);
      return undefined;
    }
    return canonical(entry.identifier, entry.identifierType as IdentifierType);
  });
  if (invalid > 0) {
    const listed = invalid > MAX_LISTED_VIOLATIONS ? ` (the first ${MAX_LISTED_VIOLATIONS} are listed)` : '';
    throw new InvalidArgumentError(
      'INVALID_BATCH',
      `${invalid} of ${input.length} entries are invalid${listed}; nothing was written`,
      violations,
    );
  }
  return entries as UserIdentifier[];
}

function requestHash(segmentId: string, entries: UserIdentifier[]): string {
  const hash = createHash('sha256').update(segmentId);
  for (const entry of entries) hash.update(`\n${entry.identifierType}:${entry.identifier}`);
  return hash.digest('hex');
}
