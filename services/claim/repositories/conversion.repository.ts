import { type Kysely, type Selectable, sql } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import type { ClaimDatabase, ConversionTable } from '../database';
import type { CheckedConversion } from '../domain/conversion-input';
import type { ConversionStatus } from '../domain/vocabulary';
import { retryTransient } from './retry';

/** A stored conversion that is still to be paid, as the job reads it. */
export interface PendingConversion {
  id: string;
  name: string;
  user: UserIdentifier;
  occurredAt: Date;
  rewardBase: bigint;
  referralCode: string | null;
  volumeUsd: string | null;
  revenueUsd: string | null;
}

/** What storing a request's conversions did to each id. */
export interface StoreOutcome {
  /** Ids stored now (or a failed conversion's same body sent again, accepted anew): the batch pays them. */
  accepted: Set<string>;
  /** Ids already stored: their hash (the same body?) and where they stand. */
  existing: Map<string, { requestHash: Buffer; status: ConversionStatus }>;
}

const PENDING_COLUMNS = [
  'id',
  'name',
  'identifier_type',
  'identifier',
  'occurred_at',
  'reward_base',
  'referral_code',
] as const satisfies ReadonlyArray<keyof ConversionTable>;

export class ConversionRepository {
  constructor(private readonly db: Kysely<ClaimDatabase>) {}

  /**
   * Stores the conversions that are new under `batchId`, in one transaction with the batch. An id
   * already stored is left as it is, except a failed conversion sent again with the same body,
   * which is accepted anew. Ids are written in order, so concurrent requests that share ids take
   * their row locks in the same order. The batch is stored only when it holds a conversion.
   */
  async store(projectId: string, batchId: string, conversions: CheckedConversion[], now: Date): Promise<StoreOutcome> {
    const sorted = [...conversions].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    // One statement: the conversions, and their batch row only when one of them is new (the
    // foreign key is checked at the end of the statement, when the batch exists). A duplicate costs
    // this statement (it waits on the row of a concurrent insert of the same id) and the read below.
    const accepted = await retryTransient(async () => {
      // Raw: an INSERT ... SELECT from a many-array unnest, with a conditional DO UPDATE, feeding another INSERT, has no builder form.
      const rows = await sql<{ id: string }>`
        WITH inserted AS (
          INSERT INTO conversions AS c (
            project_id, id, batch_id, request_hash, name, identifier_type, identifier, occurred_at, received_at,
            volume_usd, revenue_usd, reward_base, referral_code, status
          )
          SELECT ${projectId}, u.id, ${batchId}, u.request_hash, u.name, u.identifier_type, u.identifier,
                 coalesce(u.occurred_at, ${now}), ${now}, u.volume_usd, u.revenue_usd, u.reward_base, u.referral_code, 'accepted'
          FROM unnest(
            ${sorted.map((c) => c.id)}::text[], ${sorted.map((c) => c.requestHash)}::bytea[], ${sorted.map((c) => c.name)}::text[],
            ${sorted.map((c) => c.user.identifierType)}::text[], ${sorted.map((c) => c.user.identifier)}::text[],
            ${sorted.map((c) => c.occurredAt)}::timestamptz[], ${sorted.map((c) => c.volumeUsd)}::numeric[],
            ${sorted.map((c) => c.revenueUsd)}::numeric[], ${sorted.map((c) => c.rewardBase)}::numeric[], ${sorted.map((c) => c.referralCode)}::text[]
          ) WITH ORDINALITY AS u(id, request_hash, name, identifier_type, identifier, occurred_at, volume_usd, revenue_usd, reward_base, referral_code, n)
          ORDER BY u.n
          ON CONFLICT (project_id, id) DO UPDATE SET status = 'accepted', batch_id = excluded.batch_id, failure_reason = NULL
            WHERE c.status = 'failed' AND c.request_hash = excluded.request_hash
          RETURNING c.id
        ),
        batch AS (
          INSERT INTO conversion_batches (id, project_id, received, created_at)
          SELECT ${batchId}, ${projectId}, count(*), ${now} FROM inserted HAVING count(*) > 0
        )
        SELECT id FROM inserted`.execute(this.db);
      return new Set(rows.rows.map((row) => row.id));
    });
    const others = sorted.map((c) => c.id).filter((id) => !accepted.has(id));
    // A new statement: it sees rows that concurrent requests committed while this one waited for them.
    const existing =
      others.length === 0
        ? []
        : await this.db
            .selectFrom('conversions')
            .select(['id', 'request_hash', 'status'])
            .where('project_id', '=', projectId)
            .where('id', 'in', others)
            .execute();
    return { accepted, existing: new Map(existing.map((row) => [row.id, { requestHash: row.request_hash, status: row.status }])) };
  }

  /** The batch's project, while the batch still has conversions to pay; undefined once finished (or unknown). */
  async unfinishedBatch(batchId: string): Promise<{ projectId: string } | undefined> {
    const row = await this.db
      .selectFrom('conversion_batches')
      .select('project_id')
      .where('id', '=', batchId)
      .where('finished_at', 'is', null)
      .executeTakeFirst();
    return row && { projectId: row.project_id };
  }

  /** The batch's conversions still waiting to be paid, in id order. */
  async pendingOf(projectId: string, batchId: string): Promise<PendingConversion[]> {
    // By batch only: a batch's conversions are all of its project (store writes both), and a
    // condition on project_id let the planner, misled by a young table's statistics, AND the batch's
    // index with a scan of the project's whole primary key: every batch read every conversion key.
    const rows = await this.db
      .selectFrom('conversions')
      .select([...PENDING_COLUMNS, 'project_id'])
      // Text: a fractional NUMERIC has no bigint (services/platform/db/type-parsers.ts).
      .select((eb) => [
        eb.cast<string | null>('volume_usd', 'text').as('volume_text'),
        eb.cast<string | null>('revenue_usd', 'text').as('revenue_text'),
      ])
      .where('batch_id', '=', batchId)
      .where('status', '=', 'accepted')
      .orderBy('id')
      .execute();
    const foreign = rows.find((row) => row.project_id !== projectId);
    if (foreign) throw new Error(`batch ${batchId} of project ${projectId} holds conversion ${foreign.id} of project ${foreign.project_id}`);
    return rows.map(toPending);
  }

  /** Batches stored and not finished (their job may have been lost with Redis), oldest first. */
  async unfinishedBatches(limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('conversion_batches')
      .select('id')
      .where('finished_at', 'is', null)
      .orderBy('created_at')
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }

  /** The batch will not be paid: its conversions still waiting show as failed, with a reason the sender can act on. */
  async failBatch(batchId: string, reason: string, now: Date): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const failed = await trx
        .updateTable('conversions')
        .set({ status: 'failed', failure_reason: reason, processed_at: now })
        .where('batch_id', '=', batchId)
        .where('status', '=', 'accepted')
        .executeTakeFirst();
      await trx.updateTable('conversion_batches').set({ finished_at: now }).where('id', '=', batchId).where('finished_at', 'is', null).execute();
      return Number(failed.numUpdatedRows);
    });
  }
}

function toPending(
  row: Pick<Selectable<ConversionTable>, (typeof PENDING_COLUMNS)[number]> & { volume_text: string | null; revenue_text: string | null },
): PendingConversion {
  return {
    id: row.id,
    name: row.name,
    user: { identifier: row.identifier, identifierType: row.identifier_type },
    occurredAt: row.occurred_at,
    rewardBase: row.reward_base ?? 0n,
    referralCode: row.referral_code,
    volumeUsd: row.volume_text,
    revenueUsd: row.revenue_text,
  };
}
