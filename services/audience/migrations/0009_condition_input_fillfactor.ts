import { type Kysely, sql } from 'kysely';

/**
 * Room on each page of the condition-input tables for the next version of their rows. Every paid
 * conversion adds to its users' rows (sums only: no indexed column changes), so with room on the
 * page the new version is a HOT update that writes none of the table's indexes; on full pages (the
 * default fillfactor of 100) almost every update went to another page and wrote every index.
 */
const TABLES = ['user_metrics', 'user_conversion_days', 'user_earning_days', 'user_referral_days'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) await sql`ALTER TABLE ${sql.table(table)} SET (fillfactor = 70)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) await sql`ALTER TABLE ${sql.table(table)} RESET (fillfactor)`.execute(db);
}
