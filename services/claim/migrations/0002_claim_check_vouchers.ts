import { type Kysely, sql } from 'kysely';

/**
 * The claim-check half: the project's address on chain, the voucher each closed check was signed
 * with (one per check, ever: its primary key is the check), the credits that return an expired
 * voucher's amount to an open check (one per expired check, ever), and how far the chain watcher
 * has read each chain's `Claimed` logs.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE claim_settings (
      project_id uuid PRIMARY KEY,
      project_address text NOT NULL
        CHECK (project_address ~ '^0x[0-9a-f]{40}$' AND project_address <> '0x0000000000000000000000000000000000000000'),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);

  // Exactly what was signed (the struct and its EIP-712 domain), so a closed check answers the same
  // voucher every time. The proof is unique: the contract redeems a proof once.
  await sql`
    CREATE TABLE vouchers (
      claim_check_id uuid PRIMARY KEY REFERENCES claim_checks (id),
      project_id uuid NOT NULL,
      chain_id bigint NOT NULL CHECK (chain_id > 0),
      verifying_contract text NOT NULL CHECK (verifying_contract ~ '^0x[0-9a-f]{40}$'),
      domain_name text NOT NULL,
      domain_version text NOT NULL,
      project_address text NOT NULL CHECK (project_address ~ '^0x[0-9a-f]{40}$'),
      to_address text NOT NULL CHECK (to_address ~ '^0x[0-9a-f]{40}$'),
      currency_address text NOT NULL CHECK (currency_address ~ '^0x[0-9a-f]{40}$'),
      currency_type smallint NOT NULL CHECK (currency_type IN (0, 1)),
      amount numeric(78,0) NOT NULL CHECK (amount > 0),
      reason smallint NOT NULL CHECK (reason IN (0, 1, 2)),
      deadline bigint NOT NULL CHECK (deadline > 0),
      proof text NOT NULL CHECK (proof ~ '^0x[0-9a-f]{64}$'),
      signatures text[] NOT NULL CHECK (cardinality(signatures) > 0),
      closed_at timestamptz NOT NULL,
      claimed_at timestamptz,
      claim_tx_hash text CHECK (claim_tx_hash ~ '^0x[0-9a-f]{64}$'),
      claim_block_number bigint,
      claim_log_index integer,
      expired_at timestamptz
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX vouchers_proof_key ON vouchers (proof)`.execute(db);
  // What the watcher looks at for expiry: vouchers neither redeemed nor expired, by deadline.
  await sql`CREATE INDEX vouchers_outstanding_idx ON vouchers (chain_id, deadline) WHERE claimed_at IS NULL AND expired_at IS NULL`.execute(db);

  // An expired check's amount, returned to the open check of its (user, currency, reason). The
  // primary key makes it once per expired check; the open check's amount grew by it in the same transaction.
  await sql`
    CREATE TABLE claim_check_credits (
      expired_check_id uuid PRIMARY KEY REFERENCES claim_checks (id),
      project_id uuid NOT NULL,
      open_check_id uuid NOT NULL REFERENCES claim_checks (id),
      amount numeric(78,0) NOT NULL CHECK (amount > 0),
      created_at timestamptz NOT NULL,
      CHECK (open_check_id <> expired_check_id)
    )`.execute(db);
  await sql`CREATE INDEX claim_check_credits_open_idx ON claim_check_credits (open_check_id)`.execute(db);

  // Per chain and contract: the last block whose Claimed logs are applied (a new contract starts over).
  await sql`
    CREATE TABLE chain_cursors (
      chain_id bigint NOT NULL,
      contract text NOT NULL CHECK (contract ~ '^0x[0-9a-f]{40}$'),
      last_block bigint NOT NULL CHECK (last_block >= -1),
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (chain_id, contract)
    )`.execute(db);

  // A user's checks by status, newest first (the list's filter), and their closed checks (claimable, history).
  await sql`CREATE INDEX claim_checks_user_status_idx ON claim_checks (project_id, identifier, identifier_type, status, created_at DESC, id)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX claim_checks_user_status_idx`.execute(db);
  await sql`DROP TABLE chain_cursors, claim_check_credits, vouchers, claim_settings`.execute(db);
}
