import { type Kysely, sql } from 'kysely';

/**
 * Reversals and debt (docs/claims.md#reversals): a conversion refunded or unwound takes back a share of
 * what it paid, as new rows; no amount written before changes.
 *
 * - `conversion_reversals`: one row per reversal, keyed by the caller's `reversal_id` within the project
 *   (the same id again finds it; another body under it is refused), with the share (basis points of
 *   the conversion) and the share of its volume and revenue taken out of every figure.
 * - `movement_reversals`: what one reversal took from one movement, floor(amount × share / 10000), and
 *   where that money was: `pending` (the movement waits; it becomes available net of this), or
 *   `available` (in a check: `from_check` came out of the still-open check holding it, `to_debt`
 *   became the user's debt because the voucher was out, claimed or expired). Append-only.
 * - `claim_checks.debt`: what the user owes in the check's (currency, reason), carried on the open check
 *   that takes movements. Every amount added to that check (a payment, a release, an approval, an
 *   expired voucher credited back) pays the debt first, so a check with debt holds nothing
 *   (`debt = 0 OR amount = 0`) and cannot be closed. Not indexed: the payment's update stays HOT.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE claim_checks
      ADD COLUMN debt numeric(78,0) NOT NULL DEFAULT 0 CONSTRAINT claim_checks_debt_check CHECK (debt >= 0),
      ADD CONSTRAINT claim_checks_debt_nets_check CHECK (debt = 0 OR amount = 0)`.execute(db);
  await sql`
    CREATE TABLE conversion_reversals (
      project_id uuid NOT NULL,
      reversal_id text NOT NULL CHECK (length(reversal_id) BETWEEN 1 AND 255),
      conversion_id text NOT NULL,
      share_bps integer NOT NULL CHECK (share_bps BETWEEN 1 AND 10000),
      reason text NOT NULL,
      volume_usd numeric CHECK (volume_usd >= 0),
      revenue_usd numeric CHECK (revenue_usd >= 0),
      reversed_by text NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (project_id, reversal_id),
      FOREIGN KEY (project_id, conversion_id) REFERENCES conversions (project_id, id)
    )`.execute(db);
  await sql`CREATE INDEX conversion_reversals_conversion_idx ON conversion_reversals (project_id, conversion_id, created_at)`.execute(db);
  await sql`
    CREATE TABLE movement_reversals (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      project_id uuid NOT NULL,
      reversal_id text NOT NULL,
      movement_id bigint NOT NULL REFERENCES movements (id),
      amount numeric(78,0) NOT NULL CHECK (amount > 0),
      was text NOT NULL CHECK (was IN ('pending', 'available')),
      claim_check_id uuid REFERENCES claim_checks (id),
      from_check numeric(78,0) NOT NULL CHECK (from_check >= 0),
      to_debt numeric(78,0) NOT NULL CHECK (to_debt >= 0),
      created_at timestamptz NOT NULL,
      FOREIGN KEY (project_id, reversal_id) REFERENCES conversion_reversals (project_id, reversal_id),
      UNIQUE (movement_id, reversal_id),
      CHECK (from_check + to_debt = CASE was WHEN 'pending' THEN 0 ELSE amount END),
      CHECK ((was = 'available') = (claim_check_id IS NOT NULL))
    )`.execute(db);
  await sql`CREATE INDEX movement_reversals_project_idx ON movement_reversals (project_id, movement_id)`.execute(db);
  await sql`
    CREATE FUNCTION reversals_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'reversals are append-only: a reversal is never updated or deleted'
        USING ERRCODE = 'restrict_violation';
    END
    $$`.execute(db);
  for (const table of ['conversion_reversals', 'movement_reversals']) {
    await sql`
      CREATE TRIGGER ${sql.raw(`${table}_append_only`)} BEFORE UPDATE OR DELETE ON ${sql.table(table)}
      FOR EACH ROW EXECUTE FUNCTION reversals_append_only()`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE movement_reversals, conversion_reversals`.execute(db);
  await sql`DROP FUNCTION reversals_append_only()`.execute(db);
  await sql`ALTER TABLE claim_checks DROP CONSTRAINT claim_checks_debt_nets_check, DROP COLUMN debt`.execute(db);
}
