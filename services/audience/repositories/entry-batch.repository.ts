import { type Kysely, type Selectable, sql } from 'kysely';
import { isForeignKeyViolation } from '../../platform/db/errors';
import type { IdentifierType, UserIdentifier } from '../../rules/identifiers';
import { appendOutboxEvents } from '../../platform/outbox/append';
import type { AudienceDatabase, EntryBatchTable } from '../database';
import { BATCH_FINISHED, type EntryBatchStatus, UNFINISHED_BATCH_STATUSES } from '../domain/vocabulary';
import { entriesEvent } from './entry-events';

export interface EntryBatchRecord {
  id: string;
  projectId: string;
  segmentId: string;
  requestHash: string;
  status: EntryBatchStatus;
  received: number;
  added: number;
  skipped: number;
  error: string | null;
  createdAt: Date;
}

export interface NewEntryBatch {
  id: string;
  projectId: string;
  segmentId: string;
  idempotencyKey: string | null;
  requestHash: string;
  entries: UserIdentifier[];
  now: Date;
}

export type ApplyOutcome = { applied: true; added: number } | { applied: false; reason: 'finished' | 'missing' };

const COLUMNS = [
  'id',
  'project_id',
  'segment_id',
  'request_hash',
  'status',
  'received',
  'added',
  'skipped',
  'error',
  'created_at',
] as const satisfies ReadonlyArray<keyof EntryBatchTable>;

export class EntryBatchRepository {
  constructor(private readonly db: Kysely<AudienceDatabase>) {}

  /**
   * Stores a batch with its entries. With an idempotency key already used in the project,
   * nothing is written and the earlier batch is returned with created = false.
   * Undefined when the segment no longer exists. Gives up after `timeoutMs` (a statement
   * timeout error; nothing written), e.g. while another transaction holds the segment's row.
   */
  async create(batch: NewEntryBatch, timeoutMs: number): Promise<{ record: EntryBatchRecord; created: boolean } | undefined> {
    return this.db.transaction().execute(async (trx) => {
      // Raw: a transaction-local setting has no builder form.
      await sql`SELECT set_config('statement_timeout', ${String(Math.max(1, Math.floor(timeoutMs)))}, true)`.execute(trx);
      const inserted = await trx
        .insertInto('entry_batches')
        .values({
          id: batch.id,
          project_id: batch.projectId,
          segment_id: batch.segmentId,
          idempotency_key: batch.idempotencyKey,
          request_hash: batch.requestHash,
          status: 'queued',
          identifiers: batch.entries.map((entry) => entry.identifier),
          identifier_types: batch.entries.map((entry) => entry.identifierType),
          received: batch.entries.length,
          created_at: batch.now,
        })
        .onConflict((conflict) => conflict.columns(['project_id', 'idempotency_key']).where('idempotency_key', 'is not', null).doNothing())
        .returning(COLUMNS)
        .executeTakeFirst()
        .catch((error: unknown) => {
          if (isForeignKeyViolation(error)) return null;
          throw error;
        });
      if (inserted === null) return undefined;
      if (inserted) return { record: toRecord(inserted), created: true };
      const existing = await trx
        .selectFrom('entry_batches')
        .select(COLUMNS)
        .where('project_id', '=', batch.projectId)
        .where('idempotency_key', '=', batch.idempotencyKey)
        .executeTakeFirstOrThrow();
      return { record: toRecord(existing), created: false };
    });
  }

  async findById(projectId: string, segmentId: string, id: string): Promise<EntryBatchRecord | undefined> {
    const row = await this.db
      .selectFrom('entry_batches')
      .select(COLUMNS)
      .where('project_id', '=', projectId)
      .where('segment_id', '=', segmentId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async markActive(id: string, now: Date): Promise<void> {
    await this.db
      .updateTable('entry_batches')
      .set({ status: 'active', started_at: now })
      .where('id', '=', id)
      .where('status', '=', 'queued')
      .execute();
  }

  /**
   * Moves the stored entries into the segment in one transaction: duplicates (already in the
   * segment, or repeated in the batch) are skipped by the primary key, the segment's count and
   * the batch's outcome are updated together, and the staged entries are dropped. A second
   * delivery of the same job finds the batch finished and changes nothing.
   */
  async apply(id: string, now: Date): Promise<ApplyOutcome> {
    return this.db.transaction().execute(async (trx) => {
      const batch = await trx
        .selectFrom('entry_batches')
        .select(['project_id', 'segment_id', 'status', 'received'])
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst();
      if (!batch) return { applied: false, reason: 'missing' } as const;
      if (BATCH_FINISHED[batch.status]) return { applied: false, reason: 'finished' } as const;

      // Raw: the builder cannot say an INSERT ... SELECT from a two-array unnest with column aliases.
      const inserted = await sql<{ identifier_type: IdentifierType; identifier: string }>`
        INSERT INTO entries (segment_id, project_id, identifier_type, identifier, kind, source, added_at)
        SELECT b.segment_id, b.project_id, u.identifier_type, u.identifier, 'static', 'api', ${now}
        FROM entry_batches b, unnest(b.identifier_types, b.identifiers) AS u(identifier_type, identifier)
        WHERE b.id = ${id}
        ON CONFLICT DO NOTHING
        RETURNING identifier_type, identifier`.execute(trx);
      const added = inserted.rows.length;
      if (added > 0) {
        await trx
          .updateTable('segments')
          .set((eb) => ({ entries_count: eb('entries_count', '+', BigInt(added)) }))
          .where('id', '=', batch.segment_id)
          .execute();
        // One event for the whole batch, naming the users that entered (not those skipped).
        await appendOutboxEvents(trx, now, [entriesEvent('audience.entry_added', batch, 'static', inserted.rows)]);
      }
      await trx
        .updateTable('entry_batches')
        .set({
          status: 'completed',
          added,
          skipped: batch.received - added,
          identifiers: null,
          identifier_types: null,
          started_at: (eb) => eb.fn.coalesce('started_at', eb.val(now)),
          finished_at: now,
        })
        .where('id', '=', id)
        .execute();
      return { applied: true, added } as const;
    });
  }

  async markFailed(id: string, error: string, now: Date): Promise<void> {
    await this.db
      .updateTable('entry_batches')
      .set({ status: 'failed', error, identifiers: null, identifier_types: null, finished_at: now })
      .where('id', '=', id)
      .where('status', 'in', UNFINISHED_BATCH_STATUSES)
      .execute();
  }

  /** Batches stored and not finished yet (their job may have been lost with Redis), oldest first. */
  async findUnfinished(limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('entry_batches')
      .select('id')
      .where('status', 'in', UNFINISHED_BATCH_STATUSES)
      .orderBy('created_at')
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }
}

function toRecord(row: Pick<Selectable<EntryBatchTable>, (typeof COLUMNS)[number]>): EntryBatchRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    segmentId: row.segment_id,
    requestHash: row.request_hash,
    status: row.status,
    received: row.received,
    added: row.added,
    skipped: row.skipped,
    error: row.error,
    createdAt: row.created_at,
  };
}
