import { CompiledQuery, type Kysely, sql, type Transaction } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import { preparedStatement } from '../../platform/db/prepared-statements';
import type { AgencyDatabase } from '../database';

/** One event to store, as the domain checked it (args and metadata: JSON objects). */
export interface TrackingEventRow {
  id: string;
  name: string;
  trackingId: string;
  user: UserIdentifier | null;
  signatureVerified: boolean;
  referrer: string | null;
  dedupId: string | null;
  /** JSON objects, as checked text. */
  argsJson: string;
  metadataJson: string;
}

/** What one request's write did: the batch (null when every event was a duplicate), and the duplicates' indexes. */
export interface RecordedTrackingEvents {
  batchId: string | null;
  accepted: number;
  duplicates: number[];
}

/**
 * One request's events in ONE statement (so in one transaction, in one round trip): the dedup rows
 * first (`ON CONFLICT DO NOTHING`: a dedup_id accepted before, or earlier in the same request, is
 * not inserted; in dedup_id order, so that concurrent requests sharing dedup ids wait for each other
 * rather than deadlock, and the first of a request's repeats wins), then the events whose dedup_id was inserted now or that have none, then the batch
 * row counting them (none when nothing was stored). The events arrive as one JSON parameter read
 * by json_to_recordset: one parameter whatever the batch's size, parsed by PostgreSQL faster than pg
 * escapes arrays. `ord` is each event's index in the request, to name the duplicates.
 */
export const RECORD_TRACKING_EVENTS_SQL = preparedStatement(
  'agency_record_tracking_events',
  `WITH input AS (
  SELECT * FROM json_to_recordset($4::json) AS e(
    ord int, id uuid, name text, tracking_id text, identifier_type text, identifier text, signature_verified boolean,
    referrer text, dedup_id text, args jsonb, metadata jsonb)
), dedup AS (
  INSERT INTO tracking_event_dedup (project_id, dedup_id, event_id, received_at)
  SELECT $1::uuid, i.dedup_id, i.id, $2::timestamptz FROM input i WHERE i.dedup_id IS NOT NULL ORDER BY i.dedup_id, i.ord
  ON CONFLICT (project_id, dedup_id) DO NOTHING
  RETURNING event_id
), events AS (
  INSERT INTO tracking_events (id, project_id, batch_id, received_at, name, tracking_id, identifier_type, identifier,
    signature_verified, referrer, dedup_id, args, metadata)
  SELECT i.id, $1::uuid, $3::uuid, $2::timestamptz, i.name, i.tracking_id, i.identifier_type, i.identifier,
    i.signature_verified, i.referrer, i.dedup_id, i.args, i.metadata
  FROM input i WHERE i.dedup_id IS NULL OR i.id IN (SELECT event_id FROM dedup)
  RETURNING 1
), batch AS (
  INSERT INTO tracking_event_batches (id, project_id, received_at, event_count)
  SELECT $3::uuid, $1::uuid, $2::timestamptz, count(*) FROM events HAVING count(*) > 0
  RETURNING event_count
)
SELECT (SELECT coalesce(sum(event_count), 0) FROM batch)::int AS accepted,
  ARRAY(SELECT i.ord FROM input i WHERE i.dedup_id IS NOT NULL AND i.id NOT IN (SELECT event_id FROM dedup) ORDER BY i.ord)::int[] AS duplicates`,
);

/** The statement's parameters, in the order RECORD_TRACKING_EVENTS_SQL numbers them. */
export function recordTrackingEventsParameters(projectId: string, receivedAt: Date, batchId: string, events: readonly TrackingEventRow[]): unknown[] {
  // args and metadata go in as the checked text they are: spliced, not parsed and serialised again.
  const rows = events.map((event, ord) => {
    const head = JSON.stringify({
      ord,
      id: event.id,
      name: event.name,
      tracking_id: event.trackingId,
      identifier_type: event.user?.identifierType ?? null,
      identifier: event.user?.identifier ?? null,
      signature_verified: event.signatureVerified,
      referrer: event.referrer,
      dedup_id: event.dedupId,
    });
    return `${head.slice(0, -1)},"args":${event.argsJson},"metadata":${event.metadataJson}}`;
  });
  return [projectId, receivedAt.toISOString(), batchId, `[${rows.join(',')}]`];
}

/** A monthly partition of tracking_events: `tracking_events_YYYY_MM`, for [start, end) in UTC. */
export interface MonthPartition {
  name: string;
  start: Date;
  end: Date;
}

const PARTITION_NAME = /^tracking_events_(\d{4})_(\d{2})$/;

/** The partition of the UTC month that starts at `start` (the first of a month, 00:00 UTC). */
export function monthPartition(start: Date): MonthPartition {
  const year = start.getUTCFullYear();
  const month = start.getUTCMonth();
  return {
    name: `tracking_events_${year}_${String(month + 1).padStart(2, '0')}`,
    start: new Date(Date.UTC(year, month, 1)),
    end: new Date(Date.UTC(year, month + 1, 1)),
  };
}

/** Partition DDL and retention run under this lock, so replicas (and their daily jobs) never race. */
const PARTITION_LOCK = sql`SELECT pg_advisory_xact_lock(hashtext('agency.tracking_events.partitions'))`;

/** Whether the maintenance made a partition (and moved what the default partition held of its month). */
export interface CreatedPartition {
  name: string;
  moved: number;
}

/** Tracking events as received (tracking_events, its batches and dedup rows), and the table's monthly partitions. */
export class TrackingEventRepository {
  constructor(private readonly db: Kysely<AgencyDatabase>) {}

  async record(projectId: string, receivedAt: Date, batchId: string, events: readonly TrackingEventRow[]): Promise<RecordedTrackingEvents> {
    const { rows } = await this.db.executeQuery<{ accepted: number; duplicates: number[] }>(
      CompiledQuery.raw(RECORD_TRACKING_EVENTS_SQL, recordTrackingEventsParameters(projectId, receivedAt, batchId, events)),
    );
    const { accepted, duplicates } = rows[0]!;
    return { batchId: accepted > 0 ? batchId : null, accepted, duplicates };
  }

  /** The monthly partitions that exist, oldest first. */
  async partitions(db: Kysely<AgencyDatabase> | Transaction<AgencyDatabase> = this.db): Promise<MonthPartition[]> {
    const { rows } = await sql<{ name: string }>`
      SELECT c.relname AS name FROM pg_inherits i
      JOIN pg_class c ON c.oid = i.inhrelid
      JOIN pg_class p ON p.oid = i.inhparent
      JOIN pg_namespace n ON n.oid = p.relnamespace
      WHERE p.relname = 'tracking_events' AND n.nspname = current_schema()`.execute(db);
    return rows
      .map((row) => PARTITION_NAME.exec(row.name))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => monthPartition(new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, 1))))
      .sort((a, b) => a.start.getTime() - b.start.getTime());
  }

  /** The UTC months the default partition holds rows of (events that arrived before their month's partition existed). */
  async monthsInDefault(): Promise<Date[]> {
    const { rows } = await sql<{ month: Date }>`
      SELECT DISTINCT date_trunc('month', received_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month
      FROM tracking_events_default ORDER BY month`.execute(this.db);
    return rows.map((row) => new Date(row.month));
  }

  /**
   * Creates the month's partition unless it exists, moving the rows the default partition holds of
   * that month into it first (PostgreSQL refuses a partition whose rows sit in the default one): a
   * table like tracking_events, filled from the default partition, then attached. One transaction.
   */
  async ensurePartition(partition: MonthPartition): Promise<CreatedPartition | undefined> {
    return this.db.transaction().execute(async (trx) => {
      await PARTITION_LOCK.execute(trx);
      if ((await this.partitions(trx)).some((existing) => existing.name === partition.name)) return undefined;
      const table = sql.id(partition.name);
      const start = sql.lit(partition.start.toISOString());
      const end = sql.lit(partition.end.toISOString());
      // No event of the month may land in the default partition between the move and the attach (which would then fail).
      await sql`LOCK TABLE tracking_events_default IN ACCESS EXCLUSIVE MODE`.execute(trx);
      await sql`CREATE TABLE ${table} (LIKE tracking_events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`.execute(trx);
      const moved = await sql`
        WITH moved AS (
          DELETE FROM tracking_events_default WHERE received_at >= ${start}::timestamptz AND received_at < ${end}::timestamptz RETURNING *
        )
        INSERT INTO ${table} SELECT * FROM moved`.execute(trx);
      await sql`ALTER TABLE tracking_events ATTACH PARTITION ${table} FOR VALUES FROM (${start}) TO (${end})`.execute(trx);
      return { name: partition.name, moved: Number(moved.numAffectedRows ?? 0n) };
    });
  }

  /**
   * Retention: drops the monthly partitions that end at or before `cutoff`, and deletes what else is
   * older (rows of the default partition, dedup rows, processed batches, outcomes). Answers the
   * dropped partitions' names.
   */
  async dropBefore(cutoff: Date): Promise<string[]> {
    return this.db.transaction().execute(async (trx) => {
      await PARTITION_LOCK.execute(trx);
      const dropped = (await this.partitions(trx)).filter((partition) => partition.end.getTime() <= cutoff.getTime());
      for (const partition of dropped) await sql`DROP TABLE ${sql.id(partition.name)}`.execute(trx);
      await trx.deleteFrom('tracking_events').where('received_at', '<', cutoff).execute();
      await trx.deleteFrom('tracking_event_dedup').where('received_at', '<', cutoff).execute();
      await trx.deleteFrom('tracking_event_batches').where('received_at', '<', cutoff).where('processed_at', 'is not', null).execute();
      await trx.deleteFrom('tracking_event_outcomes').where('decided_at', '<', cutoff).execute();
      return dropped.map((partition) => partition.name);
    });
  }
}
