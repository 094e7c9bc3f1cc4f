import { type ColumnType, type Generated, type Kysely, sql } from 'kysely';

/**
 * The tables of the event outbox, in the schema of each service that uses them (its migrations call
 * createOutboxTables). A service's database type extends OutboxTables.
 */
export interface OutboxTables {
  outbox: OutboxTable;
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
  /** When the relay handed it to every consumer's queue; null while pending. */
  relayed_at: ColumnType<Date | null, never, Date | null>;
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

export async function dropOutboxTables(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE processed_events, outbox`.execute(db);
}
