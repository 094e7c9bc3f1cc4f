import { type Kysely, sql } from 'kysely';

/**
 * Payout caps (docs/claims.md#caps): payout terms may bound what a conversion pays.
 *
 * - `payout_terms` gains `cap_per_conversion` (one movement), `cap_per_end_user` (an end user's lifetime
 *   total under the terms) and `cap_window_amount` over `cap_window_days` (an affiliate's rolling total):
 *   each null while off; the window is set whole or not at all. Nullable without defaults: the table is
 *   not rewritten.
 * - A movement records what a cap cut from it (`capped_amount`, never paid later) and which cap cut it
 *   first (`capped_by`). A movement capped to nothing is still written (amount 0) so the record exists:
 *   the ledger's `amount > 0` becomes "positive, or 0 with a capped part". The constraint is added NOT
 *   VALID then validated, so the scan of existing rows takes no lock that stops payments.
 * - The append-only trigger (0010's, replaced whole) also refuses any change of the capped columns.
 *
 * Numbered 0013: 0012 is the reversals' (another branch).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE payout_terms
      ADD COLUMN cap_per_conversion numeric(78,0) CONSTRAINT payout_terms_cap_per_conversion_check CHECK (cap_per_conversion > 0),
      ADD COLUMN cap_per_end_user numeric(78,0) CONSTRAINT payout_terms_cap_per_end_user_check CHECK (cap_per_end_user > 0),
      ADD COLUMN cap_window_amount numeric(78,0) CONSTRAINT payout_terms_cap_window_amount_check CHECK (cap_window_amount > 0),
      ADD COLUMN cap_window_days integer CONSTRAINT payout_terms_cap_window_days_check CHECK (cap_window_days BETWEEN 1 AND 365),
      ADD CONSTRAINT payout_terms_cap_window_check CHECK ((cap_window_amount IS NULL) = (cap_window_days IS NULL))`.execute(db);
  await sql`
    ALTER TABLE movements
      ADD COLUMN capped_amount numeric(78,0) NOT NULL DEFAULT 0 CONSTRAINT movements_capped_amount_check CHECK (capped_amount >= 0),
      ADD COLUMN capped_by text CONSTRAINT movements_capped_by_check CHECK (capped_by IN ('per_conversion', 'per_end_user', 'per_affiliate_window')),
      ADD CONSTRAINT movements_capped_check CHECK ((capped_amount > 0) = (capped_by IS NOT NULL)),
      DROP CONSTRAINT movements_amount_check,
      ADD CONSTRAINT movements_amount_check CHECK (amount > 0 OR amount = 0 AND capped_amount > 0) NOT VALID`.execute(db);
  await sql`ALTER TABLE movements VALIDATE CONSTRAINT movements_amount_check`.execute(db);
  await sql`
    CREATE OR REPLACE FUNCTION movements_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'the ledger is append-only: movements are never updated or deleted (write a correcting movement)'
          USING ERRCODE = 'restrict_violation';
      END IF;
      IF (NEW.id, NEW.project_id, NEW.conversion_id, NEW.kind, NEW.identifier_type, NEW.identifier, NEW.currency_id, NEW.amount,
          NEW.created_at, NEW.available_at, NEW.capped_amount, NEW.capped_by)
         IS DISTINCT FROM
         (OLD.id, OLD.project_id, OLD.conversion_id, OLD.kind, OLD.identifier_type, OLD.identifier, OLD.currency_id, OLD.amount,
          OLD.created_at, OLD.available_at, OLD.capped_amount, OLD.capped_by) THEN
        RAISE EXCEPTION 'the ledger is append-only: a movement''s amount, capped part, kind, beneficiary, currency, conversion and times never change (write a correcting movement)'
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

/** Back to 0010's trigger; refused while a movement capped to nothing exists (amount 0 breaks the old check). */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION movements_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'the ledger is append-only: movements are never updated or deleted (write a correcting movement)'
          USING ERRCODE = 'restrict_violation';
      END IF;
      IF (NEW.id, NEW.project_id, NEW.conversion_id, NEW.kind, NEW.identifier_type, NEW.identifier, NEW.currency_id, NEW.amount,
          NEW.created_at, NEW.available_at)
         IS DISTINCT FROM
         (OLD.id, OLD.project_id, OLD.conversion_id, OLD.kind, OLD.identifier_type, OLD.identifier, OLD.currency_id, OLD.amount,
          OLD.created_at, OLD.available_at) THEN
        RAISE EXCEPTION 'the ledger is append-only: a movement''s amount, kind, beneficiary, currency, conversion and times never change (write a correcting movement)'
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
  await sql`
    ALTER TABLE movements
      DROP CONSTRAINT movements_amount_check,
      DROP CONSTRAINT movements_capped_check,
      DROP COLUMN capped_by,
      DROP COLUMN capped_amount,
      ADD CONSTRAINT movements_amount_check CHECK (amount > 0)`.execute(db);
  await sql`
    ALTER TABLE payout_terms
      DROP CONSTRAINT payout_terms_cap_window_check,
      DROP COLUMN cap_window_days,
      DROP COLUMN cap_window_amount,
      DROP COLUMN cap_per_end_user,
      DROP COLUMN cap_per_conversion`.execute(db);
}
