import { type ColumnType, type Generated, type Kysely, sql } from 'kysely';

/**
 * The tables of the event outbox, in the schema of each service that uses them (its migrations call
 * createOutboxTables). A service's database type extends OutboxTables.
 */
export interface OutboxTables {
  outbox: OutboxTable;
  outbox_pending: OutboxPendingTable;
  outbox_relays: OutboxRelaysTable;
  processed_events: ProcessedEventTable;
}

export interface OutboxTable {
  /** The relay's order: events go out in the order they were written (bigint: read as bigint). */
  seq: Generated<bigint>;
  id: string;
  type: string;
  project_id: string;
  /** jsonb; written as JSON text. */
  payload: ColumnType<unknown, string, never>;
  created_at: Date;
}

/** The events not relayed yet, by seq: written with the event, deleted by the round that relays it. */
export interface OutboxPendingTable {
  seq: bigint | string;
}

/** What each relay round relayed, and when: retention counts from there (one row per round, not per event). */
export interface OutboxRelaysTable {
  relayed_at: Date;
  seqs: ColumnType<string[], string[], never>;
}

/** What a consumer did with each event it received: the key that makes a redelivery change nothing. */
export interface ProcessedEventTable {
  consumer: string;
  event_id: string;
  event_type: string;
  outcome: ProcessedOutcome;
  /** Why an event was ignored or failed, for a person (never shown to API callers). */
  note: string | null;
  processed_at: Date;
}

/**
 * handled: its effect is applied; ignored: it asked for nothing that can still be done (e.g. its
 * segment was deleted meanwhile); failed: its job kept failing and was given up (a later delivery
 * tries again).
 */
export type ProcessedOutcome = 'handled' | 'ignored' | 'failed';

/**
 * Creates the outbox (events this service produces) and processed_events (events it consumed) in
 * the migrating service's own schema (the migrator's search_path). Call it from one migration.
 */
export async function createOutboxTables(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE outbox (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id uuid NOT NULL UNIQUE,
      type text NOT NULL,
      project_id uuid NOT NULL,
      payload jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      relayed_at timestamptz
    )`.execute(db);
  // The relay's read: pending events in order, from an index that holds only them.
  await sql`CREATE INDEX outbox_pending_idx ON outbox (seq) WHERE relayed_at IS NULL`.execute(db);
  // Retention: relayed events, oldest first.
  await sql`CREATE INDEX outbox_relayed_idx ON outbox (relayed_at) WHERE relayed_at IS NOT NULL`.execute(db);

  await sql`
    CREATE TABLE processed_events (
      consumer text NOT NULL,
      event_id uuid NOT NULL,
      event_type text NOT NULL,
      outcome text NOT NULL CHECK (outcome IN ('handled', 'ignored', 'failed')),
      note text,
      processed_at timestamptz NOT NULL,
      PRIMARY KEY (consumer, event_id)
    )`.execute(db);
  await sql`CREATE INDEX processed_events_processed_at_idx ON processed_events (processed_at)`.execute(db);
}

/**
 * Moves the relay's state out of the outbox rows (each service's migration after createOutboxTables
 * calls it once). Marking each relayed event in its own row (relayed_at) rewrote the whole row, about
 * 1 kB of payload, and wrote every index again (relayed_at was in the partial indexes' predicates,
 * so no update was HOT): that cost as much as a consumer applying the event. Now a pending event is
 * a row of outbox_pending (one bigint), deleted when relayed, and each round writes ONE row to
 * outbox_relays naming the events it relayed and when, which is what retention counts from.
 */
export async function splitOutboxRelayState(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE outbox_pending (seq bigint PRIMARY KEY)`.execute(db);
  await sql`
    CREATE TABLE outbox_relays (
      relayed_at timestamptz NOT NULL,
      seqs bigint[] NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX outbox_relays_relayed_at_idx ON outbox_relays (relayed_at)`.execute(db);
  // Every event appended is pending, whoever writes it (appendOutboxEvents, a set-based statement of
  // a repository): one statement-level trigger per insert, reading the statement's new rows. The
  // function keeps the migration's search_path, so it always writes the same schema's table.
  await sql`
    CREATE FUNCTION outbox_mark_pending() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      INSERT INTO outbox_pending (seq) SELECT seq FROM appended;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER outbox_pending_on_append AFTER INSERT ON outbox
    REFERENCING NEW TABLE AS appended FOR EACH STATEMENT EXECUTE FUNCTION outbox_mark_pending()`.execute(db);
  await sql`INSERT INTO outbox_pending (seq) SELECT seq FROM outbox WHERE relayed_at IS NULL`.execute(db);
  // What was relayed keeps its time, one row per moment, so retention removes it when it would have.
  await sql`INSERT INTO outbox_relays (relayed_at, seqs) SELECT relayed_at, array_agg(seq ORDER BY seq) FROM outbox WHERE relayed_at IS NOT NULL GROUP BY relayed_at`.execute(
    db,
  );
  await sql`DROP INDEX outbox_pending_idx`.execute(db);
  await sql`DROP INDEX outbox_relayed_idx`.execute(db);
  await sql`ALTER TABLE outbox DROP COLUMN relayed_at`.execute(db);
}

export async function joinOutboxRelayState(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE outbox ADD COLUMN relayed_at timestamptz`.execute(db);
  await sql`UPDATE outbox o SET relayed_at = r.relayed_at FROM (SELECT relayed_at, unnest(seqs) AS seq FROM outbox_relays) r WHERE o.seq = r.seq`.execute(
    db,
  );
  // Relayed at some moment unknown (kept by no round): now.
  await sql`UPDATE outbox o SET relayed_at = now() WHERE relayed_at IS NULL AND NOT EXISTS (SELECT 1 FROM outbox_pending p WHERE p.seq = o.seq)`.execute(
    db,
  );
  await sql`CREATE INDEX outbox_pending_idx ON outbox (seq) WHERE relayed_at IS NULL`.execute(db);
  await sql`CREATE INDEX outbox_relayed_idx ON outbox (relayed_at) WHERE relayed_at IS NOT NULL`.execute(db);
  await sql`DROP TRIGGER outbox_pending_on_append ON outbox`.execute(db);
  await sql`DROP FUNCTION outbox_mark_pending()`.execute(db);
  await sql`DROP TABLE outbox_pending, outbox_relays`.execute(db);
}

export async function dropOutboxTables(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE processed_events, outbox`.execute(db);
}
