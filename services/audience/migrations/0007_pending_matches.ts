import { type Kysely, sql } from 'kysely';

/**
 * The users incremental matching still has to re-match against their project's dynamic
 * segments: written in the transaction that changed what conditions read for them (a trait upsert,
 * the condition-inputs consumer's metric writes), deleted in the transaction that matched them. So a
 * process dying between the change and the match loses nothing: the next drain (any process, or
 * this one restarted) finds the rows. `changed_at` is the earliest change not matched yet (a burst
 * keeps its first time, so it is matched in one pass, one debounce after it began).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE pending_matches (
      project_id uuid NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      changed_at timestamptz NOT NULL,
      PRIMARY KEY (project_id, identifier_type, identifier)
    )`.execute(db);
  // Which project is due first (the drainer), and a project's users oldest first (its pass).
  await sql`CREATE INDEX pending_matches_changed_at_idx ON pending_matches (changed_at)`.execute(db);
  await sql`CREATE INDEX pending_matches_project_changed_at_idx ON pending_matches (project_id, changed_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE pending_matches`.execute(db);
}
