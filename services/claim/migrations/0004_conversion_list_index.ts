import { type Kysely, sql } from 'kysely';

/**
 * The admin list of a project's conversions, newest received first (ties by id): a page is a range
 * of this index instead of a sort of every conversion of the project. Its filters (status, name,
 * user) are checked on the rows the range walks; none is indexed, since each index costs the
 * intake of conversions, the hot path, and the list is an administrator's view.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX conversions_project_recent_idx ON conversions (project_id, received_at DESC, id DESC)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX conversions_project_recent_idx`.execute(db);
}
