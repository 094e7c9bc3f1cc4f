import { type Kysely, sql } from 'kysely';

/**
 * The conversions attributed to one affiliate (the payouts by referrer: per referred user, its volume
 * and what the affiliate earned from it) as a range of this index instead of a scan of the project's
 * conversions. Partial: most conversions are attributed to nobody, and those cost the intake nothing here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX conversions_affiliate_time_idx
      ON conversions (project_id, affiliate_identifier, affiliate_identifier_type, occurred_at)
      WHERE affiliate_identifier IS NOT NULL
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX conversions_affiliate_time_idx`.execute(db);
}
