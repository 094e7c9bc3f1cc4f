import { type Kysely, sql } from 'kysely';

/**
 * Codes keep the order they were added in: "oldest first" (the SDK's referrer_code is the oldest)
 * must not depend on two codes having different created_at to the millisecond.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE affiliate_codes ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY`.execute(db);
  await sql`DROP INDEX affiliate_codes_affiliate_idx`.execute(db);
  await sql`CREATE INDEX affiliate_codes_affiliate_idx ON affiliate_codes (affiliate_id, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX affiliate_codes_affiliate_idx`.execute(db);
  await sql`ALTER TABLE affiliate_codes DROP COLUMN id`.execute(db);
  await sql`CREATE INDEX affiliate_codes_affiliate_idx ON affiliate_codes (affiliate_id, created_at)`.execute(db);
}
