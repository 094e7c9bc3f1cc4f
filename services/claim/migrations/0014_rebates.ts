import { type Kysely, sql } from 'kysely';

/**
 * Rebates (docs/claims.md#rebates): the share of an affiliate's reward its referral code gives to the
 * users it refers, paid to the user as an `end_user_payout` marked as a rebate and taken from the
 * affiliate's `affiliate_payout` of the same conversion.
 *
 * - `conversions.user_rebate_rate_bps`: the rate (basis points of the affiliate's reward, 0..2000) of the
 *   referral's code, frozen with the rest of the attribution when the conversion is paid, so a later
 *   change of the code's rate changes no paid conversion; null when nobody was attributed (and on rows
 *   paid before rebates existed). Nullable without a default: the table is not rewritten.
 * - `movements.rebate`: true on a rebate movement. A conversion may pay its user both an end-user reward
 *   and a rebate, so the ledger's unique key (conversion, kind, beneficiary) gains it: still one payment of
 *   each per conversion. The index is built before the old one goes, so the key is never missing.
 * - The append-only trigger (0013's, replaced whole) also refuses any change of `rebate`.
 *
 * Numbered 0014 on the rebates branch (other branches of issue 24 take other numbers).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE conversions
      ADD COLUMN user_rebate_rate_bps integer CONSTRAINT conversions_user_rebate_rate_bps_check CHECK (user_rebate_rate_bps BETWEEN 0 AND 2000)`.execute(
    db,
  );
  await sql`ALTER TABLE movements ADD COLUMN rebate boolean NOT NULL DEFAULT false`.execute(db);
  // A rebate is an end user's payout: nothing else is one.
  await sql`ALTER TABLE movements ADD CONSTRAINT movements_rebate_kind_check CHECK (NOT rebate OR kind = 'end_user_payout') NOT VALID`.execute(db);
  await sql`ALTER TABLE movements VALIDATE CONSTRAINT movements_rebate_kind_check`.execute(db);
  await sql`
    CREATE UNIQUE INDEX movements_conversion_kind_beneficiary_rebate_key
    ON movements (project_id, conversion_id, kind, identifier_type, identifier, rebate)`.execute(db);
  await sql`DROP INDEX movements_conversion_kind_beneficiary_key`.execute(db);
  await sql`
    CREATE OR REPLACE FUNCTION movements_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'the ledger is append-only: movements are never updated or deleted (write a correcting movement)'
          USING ERRCODE = 'restrict_violation';
      END IF;
      IF (NEW.id, NEW.project_id, NEW.conversion_id, NEW.kind, NEW.identifier_type, NEW.identifier, NEW.currency_id, NEW.amount,
          NEW.created_at, NEW.available_at, NEW.capped_amount, NEW.capped_by, NEW.rebate)
         IS DISTINCT FROM
         (OLD.id, OLD.project_id, OLD.conversion_id, OLD.kind, OLD.identifier_type, OLD.identifier, OLD.currency_id, OLD.amount,
          OLD.created_at, OLD.available_at, OLD.capped_amount, OLD.capped_by, OLD.rebate) THEN
        RAISE EXCEPTION 'the ledger is append-only: a movement''s amount, capped part, kind, rebate mark, beneficiary, currency, conversion and times never change (write a correcting movement)'
          USING ERRCODE = 'restrict_violation';
      END IF;
      IF OLD.claim_check_id IS NOT NULL AND NEW.claim_check_id IS DISTINCT FROM OLD.claim_check_id
         OR OLD.decided_at IS NOT NULL AND NEW.decided_at IS DISTINCT FROM OLD.decided_at
         OR OLD.decided_by IS NOT NULL AND NEW.decided_by IS DISTINCT FROM OLD.decided_by
         OR OLD.decline_reason IS NOT NULL AND NEW.decline_reason IS DISTINCT FROM OLD.decline_reason THEN
        RAISE EXCEPTION 'the ledger is append-only: a movement''s claim check and decision are set once'
          USING ERRCODE = 'restrict_violation';
      END IF;
      IF NOT (OLD.status = 'pending' AND NEW.status IN ('available', 'declined')
              OR OLD.status = 'pending' AND NEW.status = 'pending' AND OLD.pending_reason IN ('approval', 'review') AND NEW.pending_reason = 'hold') THEN
        RAISE EXCEPTION 'the ledger is append-only: a movement''s status only moves forward (pending to available or declined, approval or review to hold), not % (%) to % (%)',
          OLD.status, coalesce(OLD.pending_reason, '-'), NEW.status, coalesce(NEW.pending_reason, '-')
          USING ERRCODE = 'restrict_violation';
      END IF;
      RETURN NEW;
    END
    $$`.execute(db);
}
