import { randomUUID } from 'node:crypto';
import type { Clock } from '../../platform/clock';
import { MAX_CONVERSIONS_PER_BATCH } from '../../rules/contract-limits';
import { AlreadyExistsError, type DomainError, InvalidArgumentError, invalidFields } from '../../rules/errors';
import type { Logger } from '../../platform/logger';
import type { ConversionRepository } from '../repositories/conversion.repository';
import { type CheckedConversion, checkConversion, type ConversionInputLike, DEFAULT_BACKFILL_DAYS, occurredAtBounds } from './conversion-input';
import { requireProjectId } from './project';
import type { ConversionStatus } from './vocabulary';

/** What became of one submitted conversion. */
export type Submission =
  | { id: string; outcome: 'accepted'; status: 'accepted' }
  | { id: string; outcome: 'duplicate'; status: ConversionStatus }
  | { id: string; outcome: 'refused'; error: DomainError };

/** How stored batches reach the job; implemented over BullMQ in ../jobs. */
export interface ConversionScheduler {
  /** Queues the batch's job; a failure is only logged: the relay queues every stored batch. */
  schedule(batchId: string): Promise<void>;
}

const idReused = () =>
  new AlreadyExistsError(
    'CONVERSION_ID_REUSED',
    'a different conversion was already sent with this id; each conversion needs its own id (resend the original body to confirm it)',
  );

/**
 * Takes conversions in: each is checked alone, stored once under its id (the project's dedup key),
 * and paid later by the job. The same id with the same body is a duplicate (nothing twice); with
 * another body, a refusal (CONVERSION_ID_REUSED). A failed conversion sent again with the same body
 * is accepted anew. Stored conversions are safe in PostgreSQL before anything is queued: with Redis
 * away they are still accepted, and the relay queues their batch once it is back.
 */
export class ConversionService {
  constructor(
    private readonly conversions: ConversionRepository,
    private readonly scheduler: ConversionScheduler,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** CONVERSION_BACKFILL_DAYS: how long before its project's creation a conversion may have happened. */
    private readonly backfillDays = DEFAULT_BACKFILL_DAYS,
  ) {}

  /**
   * One conversion, refused whole: bad input is 400 naming the fields, a reused id 409.
   * `projectCreatedAt` (the gateway's word) sets how early occurred_at may be (occurredAtBounds).
   */
  async submitOne(projectId: string, input: ConversionInputLike, projectCreatedAt?: Date): Promise<Exclude<Submission, { outcome: 'refused' }>> {
    const [submission] = await this.submitChecked(projectId, [input], projectCreatedAt);
    if (!submission) throw new Error('a submission of one conversion answered nothing');
    if (submission.outcome === 'refused') throw submission.error;
    return submission;
  }

  /**
   * Up to 1,000 conversions, each accepted or refused alone; answers one submission per input, in
   * order. A refusal names fields within its conversion (`reward_base`): it is the item's own answer.
   */
  async submitMany(projectId: string, inputs: ConversionInputLike[], projectCreatedAt?: Date): Promise<Submission[]> {
    if (inputs.length > MAX_CONVERSIONS_PER_BATCH) {
      throw new InvalidArgumentError('BATCH_TOO_LARGE', `a batch holds at most ${MAX_CONVERSIONS_PER_BATCH} conversions`, [
        { field: 'conversions', reason: `has ${inputs.length} conversions; the limit is ${MAX_CONVERSIONS_PER_BATCH}` },
      ]);
    }
    if (inputs.length === 0) throw invalidFields([{ field: 'conversions', reason: 'must not be empty' }]);
    return this.submitChecked(projectId, inputs, projectCreatedAt);
  }

  private async submitChecked(projectId: string, inputs: ConversionInputLike[], projectCreatedAt: Date | undefined): Promise<Submission[]> {
    requireProjectId(projectId);
    const now = this.clock.now();
    const bounds = occurredAtBounds(now, projectCreatedAt, this.backfillDays);
    const submissions: Array<Submission | undefined> = [];
    /** The first valid item of each id (later ones with the same id are compared with it). */
    const firsts = new Map<string, { index: number; conversion: CheckedConversion }>();
    const repeats: Array<{ index: number; conversion: CheckedConversion }> = [];
    inputs.forEach((input, index) => {
      const checked = checkConversion(input, '', bounds);
      if (!checked.conversion) {
        submissions[index] = { id: input.id, outcome: 'refused', error: checked.error };
      } else if (firsts.has(checked.conversion.id)) repeats.push({ index, conversion: checked.conversion });
      else firsts.set(checked.conversion.id, { index, conversion: checked.conversion });
    });

    if (firsts.size > 0) {
      const batchId = randomUUID();
      const stored = await this.conversions.store(
        projectId,
        batchId,
        [...firsts.values()].map((first) => first.conversion),
        now,
      );
      for (const { index, conversion } of firsts.values())
        submissions[index] = settle(conversion, stored.accepted.has(conversion.id), stored.existing.get(conversion.id));
      for (const { index, conversion } of repeats) {
        const first = firsts.get(conversion.id)!;
        const earlier = submissions[first.index]!;
        if (!first.conversion.requestHash.equals(conversion.requestHash))
          submissions[index] = { id: conversion.id, outcome: 'refused', error: idReused() };
        else if (earlier.outcome === 'refused') submissions[index] = { id: conversion.id, outcome: 'refused', error: earlier.error };
        else submissions[index] = { id: conversion.id, outcome: 'duplicate', status: earlier.status };
      }
      if (stored.accepted.size > 0) {
        this.logger.info({ project_id: projectId, batch_id: batchId, accepted: stored.accepted.size }, 'conversions accepted');
        await this.scheduler.schedule(batchId);
      }
    }
    return submissions.map((submission, index) => {
      if (!submission) throw new Error(`conversion ${index} of the request has no outcome`);
      return submission;
    });
  }
}

function settle(
  conversion: CheckedConversion,
  accepted: boolean,
  existing: { requestHash: Buffer; status: ConversionStatus } | undefined,
): Submission {
  if (accepted) return { id: conversion.id, outcome: 'accepted', status: 'accepted' };
  if (!existing) throw new Error(`conversion ${conversion.id} was neither stored nor found`);
  if (!existing.requestHash.equals(conversion.requestHash)) return { id: conversion.id, outcome: 'refused', error: idReused() };
  return { id: conversion.id, outcome: 'duplicate', status: existing.status };
}
