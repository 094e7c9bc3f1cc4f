import { type Kysely, sql } from 'kysely';

/**
 * Paying a conversion updates its row once (status, frozen attribution, currency): no indexed
 * column changes, so the new version can be a HOT update that writes none of the table's indexes,
 * given two things it lacked:
 * - no index may name `status`, not even in a predicate: the partial index of pending conversions
 *   (batch_id WHERE status = 'accepted') made every payment write the primary key and the list
 *   index again. A plain index of batch_id serves the same reads (a batch's conversions, their
 *   status checked on the rows, which those reads fetch anyway);
 * - room on the page: a batch's conversions are written together and paid together, in one
 *   transaction, so a page must hold the new version of each of its rows (a little larger: the
 *   attribution is filled in) besides the old one until that commits. Rows are about 245 bytes as
 *   stored and 315 once paid: at fillfactor 40 a page takes 13 conversions and keeps room for all
 *   13 new versions. The price is space: once the old versions are pruned, pages are about half
 *   full (twice the pages of a packed table), for a table written twice per conversion.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX conversions_batch_idx ON conversions (batch_id)`.execute(db);
  await sql`DROP INDEX conversions_pending_idx`.execute(db);
  await sql`ALTER TABLE conversions SET (fillfactor = 40)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE conversions RESET (fillfactor)`.execute(db);
  await sql`CREATE INDEX conversions_pending_idx ON conversions (batch_id) WHERE status = 'accepted'`.execute(db);
  await sql`DROP INDEX conversions_batch_idx`.execute(db);
}
