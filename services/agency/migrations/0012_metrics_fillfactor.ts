import { type Kysely, sql } from 'kysely';

/**
 * Room on each page of the affiliate metrics tables that conversions add to without changing an
 * indexed column (sums and counts), so the new version of a row is a HOT update that writes none
 * of the table's indexes; on full pages (the default fillfactor of 100) almost every update went to
 * another page and wrote every index. (affiliate_metrics and affiliate_filter_entries index the
 * figures they sort by, so their updates write the indexes whatever the room.)
 */
const TABLES = ['referred_user_metrics', 'affiliate_conversion_counts', 'affiliate_earnings', 'sub_affiliate_metrics'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) await sql`ALTER TABLE ${sql.table(table)} SET (fillfactor = 70)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) await sql`ALTER TABLE ${sql.table(table)} RESET (fillfactor)`.execute(db);
}
