import { type Kysely, sql } from 'kysely';

/**
 * `user_earning_days.amount` is a running sum: everything a user earned in a currency on a day, added
 * event by event. Each payout is at most 2^256 − 1 (what a voucher pays), their sum is not: past 78
 * digits NUMERIC(78,0) overflows, and the `claim.conversion.processed` event that adds to it fails on
 * every delivery, for good (a poison event: the user's condition inputs, and every other user's in
 * the same delivery, stop). Plain NUMERIC holds any sum exactly, as the claim service's leaderboard
 * totals do (its migration 0008); conditions compare it as NUMERIC already (repositories/condition-sql.ts).
 * - Binary-compatible: the table is not rewritten.
 * - Whole base units still: `scale(amount) = 0`, since a fraction could not be read back as bigint
 *   (services/platform/db/type-parsers.ts). NOT VALID: the rows written before were NUMERIC(78,0), whole
 *   by their type, so there is nothing to scan for; every row written from now on is checked.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE user_earning_days ALTER COLUMN amount TYPE numeric`.execute(db);
  await sql`ALTER TABLE user_earning_days ADD CONSTRAINT user_earning_days_amount_whole CHECK (scale(amount) = 0) NOT VALID`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE user_earning_days DROP CONSTRAINT user_earning_days_amount_whole`.execute(db);
  await sql`ALTER TABLE user_earning_days ALTER COLUMN amount TYPE numeric(78,0)`.execute(db);
}
