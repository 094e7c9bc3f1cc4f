import { type Kysely, sql } from 'kysely';

/**
 * Point movements in the ledger (docs/claims.md#points): points never enter a claim check.
 *
 * - `movements`: an available movement had a check; now an available point movement has none (it is in
 *   the user's points balance instead). The constraint keeps what holds for both: a movement in a check
 *   is available. Which currency is a point currency is the currencies table's to say, which a CHECK
 *   cannot read: a trigger refuses an available movement in no check of any other currency, as the
 *   constraint did (same error code and constraint name). Its WHEN runs it only for such rows (a
 *   point payment's, a point release's), never for the money's hot path.
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
    CREATE FUNCTION movements_available_points_only() RETURNS trigger LANGUAGE plpgsql
    -- The service's schema, as the migration found it: a statement of any session (any search_path) is checked.
    SET search_path FROM CURRENT AS $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM currencies WHERE id = NEW.currency_id AND type = 'point') THEN
        RAISE EXCEPTION 'an available movement is in a claim check, unless it pays points'
          USING ERRCODE = 'check_violation', CONSTRAINT = 'movements_check_status_check', TABLE = 'movements';
      END IF;
      RETURN NEW;
    END
    $$`.execute(db);
  await sql`
    CREATE TRIGGER movements_available_points_only BEFORE INSERT OR UPDATE ON movements
    FOR EACH ROW WHEN (NEW.status = 'available' AND NEW.claim_check_id IS NULL)
    EXECUTE FUNCTION movements_available_points_only()`.execute(db);
  await sql`
    ALTER TABLE movement_reversals
      ADD COLUMN from_points numeric(78,0) NOT NULL DEFAULT 0 CONSTRAINT movement_reversals_from_points_check CHECK (from_points >= 0),
      DROP CONSTRAINT movement_reversals_check,
      DROP CONSTRAINT movement_reversals_check1,
      ADD CONSTRAINT movement_reversals_parts_check CHECK (from_check + to_debt + from_points = CASE was WHEN 'pending' THEN 0 ELSE amount END) NOT VALID,
      ADD CONSTRAINT movement_reversals_check_check CHECK ((claim_check_id IS NOT NULL) = (was = 'available' AND from_points = 0)) NOT VALID`.execute(
    db,
  );
  await sql`ALTER TABLE movement_reversals VALIDATE CONSTRAINT movement_reversals_parts_check`.execute(db);
  await sql`ALTER TABLE movement_reversals VALIDATE CONSTRAINT movement_reversals_check_check`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER movements_available_points_only ON movements`.execute(db);
  await sql`DROP FUNCTION movements_available_points_only()`.execute(db);
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
