import { type Kysely, sql } from 'kysely';
import { createOutboxTables, dropOutboxTables } from '../../platform/outbox/tables';

/**
 * The ledger half of the claim service: currencies, payout terms, conversions (stored before they
 * are paid), the append-only ledger of movements, the open claim checks the movements accumulate
 * into, the leaderboards' running totals, and the outbox of the events it produces. Money is
 * NUMERIC(78,0) base units; USD figures NUMERIC.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await createOutboxTables(db);

  await sql`
    CREATE TABLE currencies (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      project_id uuid NOT NULL,
      chain_id bigint NOT NULL CHECK (chain_id > 0),
      address text NOT NULL CHECK (address ~ '^0x[0-9a-f]{40}$'),
      name text NOT NULL,
      decimals smallint NOT NULL CHECK (decimals BETWEEN 0 AND 77),
      type text NOT NULL CHECK (type IN ('erc20', 'native')),
      created_at timestamptz NOT NULL,
      CHECK ((type = 'native') = (address = '0x0000000000000000000000000000000000000000'))
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX currencies_chain_address_key ON currencies (project_id, chain_id, address)`.execute(db);
  // What the project-scoped foreign keys below reference: a currency of the same project.
  await sql`CREATE UNIQUE INDEX currencies_project_id_key ON currencies (project_id, id)`.execute(db);
  await sql`CREATE INDEX currencies_project_created_idx ON currencies (project_id, created_at, id)`.execute(db);

  // A reward is fixed base units or basis points of the conversion's reward_base, never both.
  await sql`
    CREATE TABLE payout_terms (
      project_id uuid NOT NULL,
      conversion_name text NOT NULL,
      currency_id uuid NOT NULL,
      end_user_fixed numeric(78,0) CHECK (end_user_fixed >= 0),
      end_user_bps integer CHECK (end_user_bps BETWEEN 0 AND 10000),
      affiliate_fixed numeric(78,0) CHECK (affiliate_fixed >= 0),
      affiliate_bps integer CHECK (affiliate_bps BETWEEN 0 AND 10000),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (project_id, conversion_name),
      FOREIGN KEY (project_id, currency_id) REFERENCES currencies (project_id, id),
      CHECK (end_user_fixed IS NULL OR end_user_bps IS NULL),
      CHECK (affiliate_fixed IS NULL OR affiliate_bps IS NULL)
    )`.execute(db);
  await sql`
    CREATE TABLE payout_term_tiers (
      project_id uuid NOT NULL,
      conversion_name text NOT NULL,
      audience_id uuid NOT NULL,
      position integer NOT NULL,
      affiliate_fixed numeric(78,0) CHECK (affiliate_fixed >= 0),
      affiliate_bps integer CHECK (affiliate_bps BETWEEN 0 AND 10000),
      PRIMARY KEY (project_id, conversion_name, audience_id),
      FOREIGN KEY (project_id, conversion_name) REFERENCES payout_terms (project_id, conversion_name) ON DELETE CASCADE,
      CHECK ((affiliate_fixed IS NULL) <> (affiliate_bps IS NULL))
    )`.execute(db);

  // One submission request's new conversions: the unit the job pays, and what the relay keeps queued.
  await sql`
    CREATE TABLE conversion_batches (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      received integer NOT NULL,
      created_at timestamptz NOT NULL,
      finished_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX conversion_batches_unfinished_idx ON conversion_batches (created_at) WHERE finished_at IS NULL`.execute(db);

  // The caller's id is the primary key: a resubmission finds its conversion instead of adding one.
  // Attribution and currency are written once, when the conversion is paid, and never change.
  await sql`
    CREATE TABLE conversions (
      project_id uuid NOT NULL,
      id text NOT NULL,
      batch_id uuid NOT NULL REFERENCES conversion_batches (id),
      request_hash bytea NOT NULL,
      name text NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      occurred_at timestamptz NOT NULL,
      received_at timestamptz NOT NULL,
      volume_usd numeric CHECK (volume_usd >= 0),
      revenue_usd numeric CHECK (revenue_usd >= 0),
      reward_base numeric(78,0) CHECK (reward_base >= 0),
      referral_code text,
      status text NOT NULL CHECK (status IN ('accepted', 'processed', 'no_terms', 'failed')),
      processed_at timestamptz,
      failure_reason text,
      currency_id uuid,
      affiliate_id text,
      affiliate_identifier_type text,
      affiliate_identifier text,
      master_id text,
      master_identifier_type text,
      master_identifier text,
      master_spread_bps integer CHECK (master_spread_bps BETWEEN 0 AND 10000),
      tier_id uuid,
      PRIMARY KEY (project_id, id)
    )`.execute(db);
  await sql`CREATE INDEX conversions_pending_idx ON conversions (batch_id) WHERE status = 'accepted'`.execute(db);

  // Open checks accumulate a user's movements per (currency, reason): at most one open check per key.
  await sql`
    CREATE TABLE claim_checks (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      project_id uuid NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      currency_id uuid NOT NULL,
      reason text NOT NULL CHECK (reason IN ('affiliate', 'end_user', 'agency')),
      status text NOT NULL CHECK (status IN ('open', 'closed', 'claimed', 'expired')),
      amount numeric(78,0) NOT NULL CHECK (amount >= 0),
      movements_count integer NOT NULL CHECK (movements_count >= 0),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      FOREIGN KEY (project_id, currency_id) REFERENCES currencies (project_id, id)
    )`.execute(db);
  await sql`
    CREATE UNIQUE INDEX claim_checks_open_key ON claim_checks (project_id, identifier, identifier_type, currency_id, reason)
    WHERE status = 'open'`.execute(db);
  await sql`CREATE INDEX claim_checks_user_idx ON claim_checks (project_id, identifier, identifier_type, created_at DESC, id)`.execute(db);

  // The ledger. Append-only (the trigger below refuses UPDATE and DELETE); a correction is a new
  // movement. The unique key (conversion, kind, beneficiary) makes paying a conversion twice impossible.
  await sql`
    CREATE TABLE movements (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      project_id uuid NOT NULL,
      conversion_id text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('affiliate_payout', 'end_user_payout', 'agency_payout')),
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      currency_id uuid NOT NULL,
      amount numeric(78,0) NOT NULL CHECK (amount > 0),
      claim_check_id uuid NOT NULL REFERENCES claim_checks (id),
      created_at timestamptz NOT NULL,
      FOREIGN KEY (project_id, conversion_id) REFERENCES conversions (project_id, id),
      FOREIGN KEY (project_id, currency_id) REFERENCES currencies (project_id, id)
    )`.execute(db);
  await sql`
    CREATE UNIQUE INDEX movements_conversion_kind_beneficiary_key
    ON movements (project_id, conversion_id, kind, identifier_type, identifier)`.execute(db);
  // A user's movements, newest first.
  await sql`CREATE INDEX movements_user_recent_idx ON movements (project_id, identifier, identifier_type, created_at DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX movements_claim_check_idx ON movements (claim_check_id)`.execute(db);
  await sql`
    CREATE FUNCTION movements_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'the ledger is append-only: movements are never updated or deleted (write a correcting movement)'
        USING ERRCODE = 'restrict_violation';
    END
    $$`.execute(db);
  await sql`
    CREATE TRIGGER movements_append_only BEFORE UPDATE OR DELETE ON movements
    FOR EACH ROW EXECUTE FUNCTION movements_append_only()`.execute(db);

  // Leaderboards as running totals, updated in the transaction that writes the movements; a page is
  // an index range, its size one row.
  await sql`
    CREATE TABLE leaderboard_totals (
      project_id uuid NOT NULL,
      currency_id uuid NOT NULL,
      user_type text NOT NULL CHECK (user_type IN ('affiliate', 'end_user')),
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      total_amount numeric(78,0) NOT NULL CHECK (total_amount >= 0),
      total_attributions bigint NOT NULL CHECK (total_attributions >= 0),
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (project_id, currency_id, user_type, identifier_type, identifier)
    )`.execute(db);
  await sql`
    CREATE INDEX leaderboard_totals_rank_idx
    ON leaderboard_totals (project_id, currency_id, user_type, total_amount DESC, identifier, identifier_type)
    INCLUDE (total_attributions)`.execute(db);
  await sql`
    CREATE TABLE leaderboard_sizes (
      project_id uuid NOT NULL,
      currency_id uuid NOT NULL,
      user_type text NOT NULL CHECK (user_type IN ('affiliate', 'end_user')),
      entries bigint NOT NULL CHECK (entries >= 0),
      PRIMARY KEY (project_id, currency_id, user_type)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE leaderboard_sizes, leaderboard_totals, movements, claim_checks, conversions, conversion_batches, payout_term_tiers, payout_terms, currencies`.execute(
    db,
  );
  await sql`DROP FUNCTION movements_append_only()`.execute(db);
  await dropOutboxTables(db);
}
