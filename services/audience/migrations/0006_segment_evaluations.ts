import { type Kysely, sql } from 'kysely';

/**
 * The full evaluation of each dynamic segment: one row per segment, its latest
 * evaluation. Stored before its job is queued, so the relay re-queues one Redis lost. `requested`
 * counts requests: a job carries the count it was queued for, and a job whose count is no longer
 * the latest steps aside for the newer one, so one evaluation per segment runs at a time and a
 * change of the condition during a run is never missed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE segment_evaluations (
      segment_id uuid PRIMARY KEY REFERENCES segments (id) ON DELETE CASCADE,
      project_id uuid NOT NULL,
      status text NOT NULL CHECK (status IN ('queued', 'active', 'completed', 'failed')),
      requested integer NOT NULL CHECK (requested > 0),
      requested_at timestamptz NOT NULL,
      started_at timestamptz,
      finished_at timestamptz,
      matched bigint,
      added bigint,
      removed bigint,
      error text
    )`.execute(db);
  await sql`CREATE INDEX segment_evaluations_unfinished_idx ON segment_evaluations (requested_at) WHERE status IN ('queued', 'active')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE segment_evaluations`.execute(db);
}
