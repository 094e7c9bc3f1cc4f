import { type Kysely, sql } from 'kysely';

/**
 * Referral levels on the ledger (docs/claims.md#referral-levels): `movements.level`, the level of the referral
 * chain an `affiliate_payout` pays (1 the referring affiliate, 2..4 its upline). Every other kind, and every
 * movement written before levels existed, is level 1. NOT NULL DEFAULT 1: PostgreSQL adds it without rewriting
 * the table. The ledger's unique key (conversion, kind, beneficiary, rebate) stays as it is: one affiliate is
 * never at two levels of one chain (the agency refuses a referral that would close a cycle), so a conversion
 * still pays each beneficiary once per kind.
 * The append-only trigger (0014's, replaced whole) also refuses any change of `level`.
 *
 * Numbered 0018 on the levels-claim branch (other branches of issue 25 take other numbers).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE movements ADD COLUMN level smallint NOT NULL DEFAULT 1`.execute(db);
  // Only an affiliate's payout has a level above 1.
  await sql`ALTER TABLE movements ADD CONSTRAINT movements_level_check CHECK (level BETWEEN 1 AND 4 AND (level = 1 OR kind = 'affiliate_payout')) NOT VALID`.execute(
    db,
  );
  await sql`ALTER TABLE movements VALIDATE CONSTRAINT movements_level_check`.execute(db);
  await sql`
    CREATE OR REPLACE FUNCTION movements_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'the ledger is append-only: movements are never updated or deleted (write a correcting movement)'
          USING ERRCODE = 'restrict_violation';
      END IF;
      IF (NEW.id, NEW.project_id, NEW.conversion_id, NEW.kind, NEW.identifier_type, NEW.identifier, NEW.currency_id, NEW.amount,
          NEW.created_at, NEW.available_at, NEW.capped_amount, NEW.capped_by, NEW.rebate, NEW.level)
         IS DISTINCT FROM
         (OLD.id, OLD.project_id, OLD.conversion_id, OLD.kind, OLD.identifier_type, OLD.identifier, OLD.currency_id, OLD.amount,
          OLD.created_at, OLD.available_at, OLD.capped_amount, OLD.capped_by, OLD.rebate, OLD.level) THEN
        RAISE EXCEPTION 'the ledger is append-only: a movement''s amount, capped part, kind, rebate mark, referral level, beneficiary, currency, conversion and times never change (write a correcting movement)'
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
