import { type Kysely, sql } from 'kysely';

/**
 * Holding and approval: the commission lifecycle's statuses.
 *
 * - Payout terms gain `hold_days` (0..365) and `require_approval`: a conversion paid under them writes
 *   its movements `pending` (reason `hold` or `approval`), in no claim check, `available_at` = processing
 *   time + hold. Constant defaults: the table is not rewritten.
 * - A movement's `status` is `pending`, `available` or `declined`. Only an available movement is in a
 *   claim check (`claim_check_id` is now nullable: a pending or declined movement is in none). Rows
 *   written before are available (the constant default) and keep `available_at` null, read as their
 *   `created_at`; every new row must carry one (NOT VALID: old rows are not checked).
 * - Decisions (approve, decline) are recorded on the movement: when, by which API key, and a decline's reason.
 * - The ledger stays append-only for money: the trigger now lets an UPDATE move a movement's status
 *   forward only (pending -> available with its check set from null, pending -> declined, pending for
 *   approval or review -> pending for hold) and set the decision columns once; every other change, and
 *   every DELETE, is refused as before.
 * - The release job finds due holds by a partial index holding pending movements only: the payment of
 *   an available movement (the hot path) adds nothing to it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE payout_terms
      ADD COLUMN hold_days integer NOT NULL DEFAULT 0 CONSTRAINT payout_terms_hold_days_check CHECK (hold_days BETWEEN 0 AND 365),
      ADD COLUMN require_approval boolean NOT NULL DEFAULT false`.execute(db);
  await sql`
    ALTER TABLE movements
      ALTER COLUMN claim_check_id DROP NOT NULL,
      ADD COLUMN status text NOT NULL DEFAULT 'available' CONSTRAINT movements_status_check CHECK (status IN ('pending', 'available', 'declined')),
      ADD COLUMN pending_reason text CONSTRAINT movements_pending_reason_check CHECK (pending_reason IN ('hold', 'approval', 'review')),
      ADD COLUMN available_at timestamptz,
      ADD COLUMN decided_at timestamptz,
      ADD COLUMN decided_by text,
      ADD COLUMN decline_reason text,
      ADD CONSTRAINT movements_pending_reason_status_check CHECK ((status = 'pending') = (pending_reason IS NOT NULL)),
      ADD CONSTRAINT movements_check_status_check CHECK ((status = 'available') = (claim_check_id IS NOT NULL)),
      ADD CONSTRAINT movements_available_at_check CHECK (available_at IS NOT NULL) NOT VALID`.execute(db);
  await sql`
    CREATE INDEX movements_pending_idx ON movements (pending_reason, available_at, id)
    WHERE status = 'pending'`.execute(db);
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
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION movements_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'the ledger is append-only: movements are never updated or deleted (write a correcting movement)'
        USING ERRCODE = 'restrict_violation';
    END
    $$`.execute(db);
  await sql`DROP INDEX movements_pending_idx`.execute(db);
  await sql`
    ALTER TABLE movements
      DROP CONSTRAINT movements_available_at_check,
      DROP CONSTRAINT movements_check_status_check,
      DROP CONSTRAINT movements_pending_reason_status_check,
      DROP COLUMN decline_reason,
      DROP COLUMN decided_by,
      DROP COLUMN decided_at,
      DROP COLUMN available_at,
      DROP COLUMN pending_reason,
      DROP COLUMN status,
      ALTER COLUMN claim_check_id SET NOT NULL`.execute(db);
  await sql`ALTER TABLE payout_terms DROP COLUMN require_approval, DROP COLUMN hold_days`.execute(db);
}
