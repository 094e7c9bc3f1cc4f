import { type Kysely, sql } from 'kysely';

/**
 * Earnings are running sums: `affiliate_earnings.amount` adds every payout an affiliate (or master)
 * was ever paid in a currency, and while each payout is at most 2^256 − 1 (what a voucher pays), their
 * sum is not. Past 78 digits NUMERIC(78,0) overflows, and the `claim.conversion.processed` event
 * that adds to the sum fails on every delivery, for good (a poison event: the affiliate's metrics
 * stop, and the rebuild fails on the same sum). Plain NUMERIC holds any sum exactly, as the claim
 * service's leaderboard totals do (its migration 0008).
 * - Binary-compatible: the table is not rewritten.
 * - Whole base units still: `scale(amount) = 0`, since a fraction could not be read back as bigint
 *   (services/platform/db/type-parsers.ts). NOT VALID: the rows written before were NUMERIC(78,0), whole
 *   by their type, so there is nothing to scan for; every row written from now on is checked.
 * Single amounts (conversion_facts' payouts: one movement each) stay NUMERIC(78,0).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE affiliate_earnings ALTER COLUMN amount TYPE numeric`.execute(db);
  await sql`ALTER TABLE affiliate_earnings ADD CONSTRAINT affiliate_earnings_amount_whole CHECK (scale(amount) = 0) NOT VALID`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE affiliate_earnings DROP CONSTRAINT affiliate_earnings_amount_whole`.execute(db);
  await sql`ALTER TABLE affiliate_earnings ALTER COLUMN amount TYPE numeric(78,0)`.execute(db);
}
