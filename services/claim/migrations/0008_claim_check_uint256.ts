import { type Kysely, sql } from 'kysely';

/** 2^256 − 1: the most a voucher's uint256 amount holds (services/rules/money.ts MAX_AMOUNT). */
const MAX_AMOUNT = '115792089237316195423570985008687907853269984665640564039457584007913129639935';

/**
 * No claim check past 2^256 − 1, which no voucher can pay:
 * - `full_at`: when an open check stopped taking movements and credits because the next one would
 *   have taken it past 2^256 − 1. A full check stays open (listed, closable, signed for what it
 *   holds); the movement goes to a new open check of the same (user, currency, reason). So a user
 *   has at most one open check per key that takes movements (the unique index, now on
 *   `status = 'open' AND full_at IS NULL`), and any number of full ones.
 * - Checks and movements past 2^256 − 1 are refused by constraints from now on (NOT VALID: rows
 *   written before are not checked, and none of them is ever updated again: see below).
 * - Open checks already past 2^256 − 1 (written before amounts were bounded) are marked full, so the
 *   user's next payouts go to a new check instead of being locked in one that cannot be signed.
 *   Their amount cannot be split (the ledger is append-only), so closing them still answers 409
 *   CLAIM_CHECK_UNSIGNABLE: they are the open checks with `amount > 2^256 − 1`, for an operator to
 *   settle (a full check is never written again, so the constraints below never see them).
 * - Leaderboard totals are plain NUMERIC: a total of many payouts may pass 78 digits, and must not
 *   make the payment that adds to it fail. Binary-compatible: the table is not rewritten.
 * The payment's statement keeps `full_at` out of its updates, so they stay HOT (migration 0003).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE claim_checks ADD COLUMN full_at timestamptz`.execute(db);
  await sql`UPDATE claim_checks SET full_at = now(), updated_at = now() WHERE status = 'open' AND amount > ${sql.raw(MAX_AMOUNT)}`.execute(db);
  await sql`
    CREATE UNIQUE INDEX claim_checks_accepting_key ON claim_checks (project_id, identifier, identifier_type, currency_id, reason)
    WHERE status = 'open' AND full_at IS NULL`.execute(db);
  await sql`DROP INDEX claim_checks_open_key`.execute(db);
  await sql`ALTER TABLE claim_checks ADD CONSTRAINT claim_checks_amount_uint256 CHECK (amount <= ${sql.raw(MAX_AMOUNT)}) NOT VALID`.execute(db);
  await sql`ALTER TABLE movements ADD CONSTRAINT movements_amount_uint256 CHECK (amount <= ${sql.raw(MAX_AMOUNT)}) NOT VALID`.execute(db);
  await sql`ALTER TABLE claim_check_credits ADD CONSTRAINT claim_check_credits_amount_uint256 CHECK (amount <= ${sql.raw(MAX_AMOUNT)}) NOT VALID`.execute(
    db,
  );
  await sql`ALTER TABLE leaderboard_totals ALTER COLUMN total_amount TYPE numeric`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE leaderboard_totals ALTER COLUMN total_amount TYPE numeric(78,0)`.execute(db);
  await sql`ALTER TABLE claim_check_credits DROP CONSTRAINT claim_check_credits_amount_uint256`.execute(db);
  await sql`ALTER TABLE movements DROP CONSTRAINT movements_amount_uint256`.execute(db);
  await sql`ALTER TABLE claim_checks DROP CONSTRAINT claim_checks_amount_uint256`.execute(db);
  await sql`
    CREATE UNIQUE INDEX claim_checks_open_key ON claim_checks (project_id, identifier, identifier_type, currency_id, reason)
    WHERE status = 'open'`.execute(db);
  await sql`DROP INDEX claim_checks_accepting_key`.execute(db);
  await sql`ALTER TABLE claim_checks DROP COLUMN full_at`.execute(db);
}
