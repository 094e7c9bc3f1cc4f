import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE affiliates (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      project_id uuid NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      name text NOT NULL,
      region text CHECK (region ~ '^[A-Z]{2}$'),
      status text NOT NULL CHECK (status IN ('active', 'suspended')),
      joined_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CONSTRAINT affiliates_user_key UNIQUE (project_id, identifier_type, identifier)
    )`.execute(db);
  // The admin list: newest first, optionally by status or region; q is a prefix of the identifier or the name.
  await sql`CREATE INDEX affiliates_list_idx ON affiliates (project_id, joined_at DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX affiliates_status_idx ON affiliates (project_id, status, joined_at DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX affiliates_identifier_prefix_idx ON affiliates (project_id, identifier text_pattern_ops)`.execute(db);
  await sql`CREATE INDEX affiliates_name_prefix_idx ON affiliates (project_id, lower(name) text_pattern_ops)`.execute(db);

  await sql`
    CREATE TABLE affiliate_suspensions (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      affiliate_id uuid NOT NULL REFERENCES affiliates (id),
      project_id uuid NOT NULL,
      reason text NOT NULL,
      suspended_at timestamptz NOT NULL,
      suspended_by text,
      reactivated_at timestamptz,
      reactivated_by text,
      CHECK (reactivated_at IS NULL OR reactivated_at >= suspended_at)
    )`.execute(db);
  // At most one open suspension per affiliate, whatever runs concurrently.
  await sql`CREATE UNIQUE INDEX affiliate_suspensions_one_open ON affiliate_suspensions (affiliate_id) WHERE reactivated_at IS NULL`.execute(db);
  // "Was it suspended at t?" for attribution.
  await sql`CREATE INDEX affiliate_suspensions_period_idx ON affiliate_suspensions (affiliate_id, suspended_at)`.execute(db);

  await sql`
    CREATE TABLE affiliate_codes (
      project_id uuid NOT NULL,
      code text NOT NULL CHECK (code ~ '^[A-Za-z0-9_-]{3,32}$'),
      affiliate_id uuid NOT NULL REFERENCES affiliates (id),
      created_at timestamptz NOT NULL
    )`.execute(db);
  // One code per project whatever its letter case: "Alice" and "alice" are the same code.
  await sql`CREATE UNIQUE INDEX affiliate_codes_project_code_key ON affiliate_codes (project_id, lower(code))`.execute(db);
  await sql`CREATE INDEX affiliate_codes_affiliate_idx ON affiliate_codes (affiliate_id, created_at)`.execute(db);

  // The primary key is the rule: one referral per user per project, so the first one wins.
  await sql`
    CREATE TABLE referrals (
      project_id uuid NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      affiliate_id uuid NOT NULL REFERENCES affiliates (id),
      code text NOT NULL,
      referred_at timestamptz NOT NULL,
      PRIMARY KEY (project_id, identifier_type, identifier)
    )`.execute(db);
  // Uses per code, and an affiliate's referred users.
  await sql`CREATE INDEX referrals_affiliate_code_idx ON referrals (affiliate_id, code)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE referrals, affiliate_codes, affiliate_suspensions, affiliates`.execute(db);
}
