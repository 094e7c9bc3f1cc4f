import { type Kysely, sql } from 'kysely';

/**
 * Point movements in the ledger (docs/claims.md#points): points never enter a claim check.
 *
 * - `movements`: an available movement had a check; now an available point movement has none (it is in
 *   the user's points balance instead). The constraint keeps what holds for both: a movement in a check
 *   is available. Which currency is a point currency is the currencies table's to say (a CHECK cannot
 *   read it); the ledger identity (test/claim property test) checks that every available money movement
 *   has its check.
 * - `movement_reversals.from_points`: what a reversal of an available point movement took from the
 *   user's points balance (all of its amount: there is no voucher to have carried it, so no debt). Such
 *   a part is in no check either.
 *
 * Added NOT VALID and validated after: the scan runs without blocking the payments' writes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE movements
      DROP CONSTRAINT movements_check_status_check,
      ADD CONSTRAINT movements_check_status_check CHECK (claim_check_id IS NULL OR status = 'available') NOT VALID`.execute(db);
  await sql`ALTER TABLE movements VALIDATE CONSTRAINT movements_check_status_check`.execute(db);
  await sql`
    ALTER TABLE movement_reversals
      ADD COLUMN from_points numeric(78,0) NOT NULL DEFAULT 0 CONSTRAINT movement_reversals_from_points_check CHECK (from_points >= 0),
      DROP CONSTRAINT movement_reversals_check,
      DROP CONSTRAINT movement_reversals_check1,
      ADD CONSTRAINT movement_reversals_parts_check CHECK (from_check + to_debt + from_points = CASE was WHEN 'pending' THEN 0 ELSE amount END) NOT VALID,
      ADD CONSTRAINT movement_reversals_check_check CHECK ((claim_check_id IS NOT NULL) = (was = 'available' AND from_points = 0)) NOT VALID`.execute(db);
  await sql`ALTER TABLE movement_reversals VALIDATE CONSTRAINT movement_reversals_parts_check`.execute(db);
  await sql`ALTER TABLE movement_reversals VALIDATE CONSTRAINT movement_reversals_check_check`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE movement_reversals
      DROP CONSTRAINT movement_reversals_check_check,
      DROP CONSTRAINT movement_reversals_parts_check,
      DROP COLUMN from_points,
      ADD CONSTRAINT movement_reversals_check CHECK (from_check + to_debt = CASE was WHEN 'pending' THEN 0 ELSE amount END),
      ADD CONSTRAINT movement_reversals_check1 CHECK ((was = 'available') = (claim_check_id IS NOT NULL))`.execute(db);
  await sql`
    ALTER TABLE movements
      DROP CONSTRAINT movements_check_status_check,
      ADD CONSTRAINT movements_check_status_check CHECK ((status = 'available') = (claim_check_id IS NOT NULL))`.execute(db);
}
