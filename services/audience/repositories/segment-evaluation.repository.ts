import { type Kysely, sql, type Transaction } from 'kysely';
import type { AudienceDatabase } from '../database';
import type { Condition } from '../domain/condition';
import type { EvaluationStatus } from '../domain/vocabulary';
import { lockSegmentMatching, matchSegment, type MatchOutcome } from './dynamic-entries.repository';
import { claimPendingMatches } from './pending-matches.repository';

export interface EvaluationRecord {
  segmentId: string;
  projectId: string;
  status: EvaluationStatus;
  requested: number;
  startedAt: Date | null;
  finishedAt: Date | null;
  matched: number | null;
  added: number | null;
  removed: number | null;
}

/** A segment as matching reads it: its condition as stored (JSON text), or null for a static one. */
export interface MatchableSegment {
  id: string;
  projectId: string;
  conditionJson: string | null;
}

export type ParseCondition = (json: string) => Condition;

const COLUMNS = ['segment_id', 'project_id', 'status', 'requested', 'started_at', 'finished_at', 'matched', 'added', 'removed'] as const;

export class SegmentEvaluationRepository {
  constructor(private readonly db: Kysely<AudienceDatabase>) {}

  /**
   * Records a new request for the segment's evaluation (the first, or one more) and returns its
   * number; undefined when the segment is not in the project.
   */
  request(projectId: string, segmentId: string, now: Date): Promise<number | undefined> {
    return requestEvaluation(this.db, projectId, segmentId, now);
  }

  async find(projectId: string, segmentId: string): Promise<EvaluationRecord | undefined> {
    const row = await this.db
      .selectFrom('segment_evaluations')
      .select(COLUMNS)
      .where('project_id', '=', projectId)
      .where('segment_id', '=', segmentId)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  /** Evaluations requested and not finished, oldest first: the relay makes sure each has its job. */
  async findUnfinished(limit: number): Promise<Array<{ segmentId: string; requested: number }>> {
    const rows = await this.db
      .selectFrom('segment_evaluations')
      .select(['segment_id', 'requested'])
      .where('status', 'in', ['queued', 'active'])
      .orderBy('requested_at')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ segmentId: row.segment_id, requested: row.requested }));
  }

  /**
   * Marks request `requested` active, unless it is no longer the latest or has finished: then
   * false, and the job has nothing to do (a newer job evaluates, or this one already did).
   */
  async start(segmentId: string, requested: number, now: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('segment_evaluations')
      .set({ status: 'active', started_at: now })
      .where('segment_id', '=', segmentId)
      .where('requested', '=', requested)
      .where('status', 'in', ['queued', 'active'])
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * The evaluation itself, in one transaction: waits for the segment's turn, reads its condition
   * now (a change since the request is seen), matches, and records the outcome only if request
   * `requested` is still the latest (a newer one leaves the row queued for its own job). A process
   * dying inside changes nothing: the job runs again. Undefined when the segment is gone.
   */
  async evaluate(
    segmentId: string,
    requested: number,
    at: { now: Date; today: string },
    parse: ParseCondition,
    finishedAt: () => Date,
  ): Promise<MatchOutcome | undefined> {
    return this.db.transaction().execute(async (trx) => {
      await lockSegmentMatching(trx, segmentId);
      const segment = await readSegment(trx, segmentId);
      if (!segment) return undefined;
      const outcome = await matchSegment(trx, segment, segment.conditionJson === null ? null : parse(segment.conditionJson), at);
      await trx
        .updateTable('segment_evaluations')
        .set({ status: 'completed', finished_at: finishedAt(), matched: outcome.matched, added: outcome.added, removed: outcome.removed })
        .where('segment_id', '=', segmentId)
        .where('requested', '=', requested)
        .execute();
      return outcome;
    });
  }

  /** Request `requested` will not be evaluated: it shows as failed (unless a newer one replaced it). */
  async markFailed(segmentId: string, requested: number, reason: string, now: Date): Promise<void> {
    await this.db
      .updateTable('segment_evaluations')
      .set({ status: 'failed', finished_at: now, error: reason })
      .where('segment_id', '=', segmentId)
      .where('requested', '=', requested)
      .where('status', 'in', ['queued', 'active'])
      .execute();
  }

  /**
   * Incremental matching, in ONE transaction: claims up to `limit` pending users of the project
   * (pending-matches.repository.ts) and matches exactly them against each of its dynamic segments
   * in turn (segment id order, so two passes take the segments' turns in one order), with the
   * conditions the segments have now. The users leave the pending table only if every match
   * commits; a failure or a process dying mid-pass leaves them for the next pass. Undefined when
   * no user was left to claim.
   */
  async matchPending(
    projectId: string,
    limit: number,
    at: { now: Date; today: string },
    parse: ParseCondition,
  ): Promise<{ users: number; changed: number } | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const users = await claimPendingMatches(trx, projectId, limit);
      if (users.length === 0) return undefined;
      let changed = 0;
      for (const segment of await dynamicSegments(trx, projectId)) {
        await lockSegmentMatching(trx, segment.id);
        const current = await readSegment(trx, segment.id);
        if (!current || current.conditionJson === null) continue;
        const outcome = await matchSegment(trx, current, parse(current.conditionJson), at, users);
        changed += outcome.added + outcome.removed;
      }
      return { users: users.length, changed };
    });
  }
}

/**
 * Records a new request for the segment's evaluation (the first, or one more) and returns its
 * number; undefined when the segment is not in the project. What a finished evaluation said is
 * cleared: the answer now is the one to come. Given a transaction (a segment's create or change of
 * its condition), the request commits with the change, so no crash between them can lose it.
 */
export async function requestEvaluation(
  db: Kysely<AudienceDatabase> | Transaction<AudienceDatabase>,
  projectId: string,
  segmentId: string,
  now: Date,
): Promise<number | undefined> {
  // Raw: INSERT ... SELECT FROM segments (so a foreign segment inserts nothing) with an upsert.
  const { rows } = await sql<{ requested: number }>`
    INSERT INTO segment_evaluations (segment_id, project_id, status, requested, requested_at)
    SELECT s.id, s.project_id, 'queued', 1, ${now}::timestamptz FROM segments s WHERE s.id = ${segmentId} AND s.project_id = ${projectId}
    ON CONFLICT (segment_id) DO UPDATE SET
      status = 'queued', requested = segment_evaluations.requested + 1, requested_at = EXCLUDED.requested_at,
      started_at = NULL, finished_at = NULL, matched = NULL, added = NULL, removed = NULL, error = NULL
    RETURNING requested`.execute(db);
  return rows[0]?.requested;
}

/** The project's dynamic segments (those with a condition), in id order. */
async function dynamicSegments(trx: Transaction<AudienceDatabase>, projectId: string): Promise<Array<{ id: string }>> {
  return trx.selectFrom('segments').select('id').where('project_id', '=', projectId).where('condition', 'is not', null).orderBy('id').execute();
}

/** The segment with its condition, held (FOR KEY SHARE) so it is not deleted under the match. */
async function readSegment(trx: Transaction<AudienceDatabase>, segmentId: string): Promise<MatchableSegment | undefined> {
  const row = await trx
    .selectFrom('segments')
    .select((eb) => ['id', 'project_id', eb.cast<string | null>('condition', 'text').as('condition_json')])
    .where('id', '=', segmentId)
    .forKeyShare()
    .executeTakeFirst();
  return row && { id: row.id, projectId: row.project_id, conditionJson: row.condition_json };
}

function toRecord(row: {
  segment_id: string;
  project_id: string;
  status: EvaluationStatus;
  requested: number;
  started_at: Date | null;
  finished_at: Date | null;
  matched: bigint | null;
  added: bigint | null;
  removed: bigint | null;
}): EvaluationRecord {
  const count = (value: bigint | null) => (value === null ? null : Number(value));
  return {
    segmentId: row.segment_id,
    projectId: row.project_id,
    status: row.status,
    requested: row.requested,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    matched: count(row.matched),
    added: count(row.added),
    removed: count(row.removed),
  };
}
