import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Encrypted values keep their key id, IV, ciphertext and tag side by side: all four or none.
  await sql`
    CREATE TABLE tax_settings (
      project_id uuid PRIMARY KEY,
      require_tax_info boolean NOT NULL DEFAULT false,
      company_legal_name text,
      company_address jsonb,
      company_tax_id_key_id text,
      company_tax_id_iv bytea CHECK (octet_length(company_tax_id_iv) = 12),
      company_tax_id_ciphertext bytea,
      company_tax_id_auth_tag bytea CHECK (octet_length(company_tax_id_auth_tag) = 16),
      company_contact_email text,
      w8_expiry_rule text NOT NULL DEFAULT 'three_years' CHECK (w8_expiry_rule IN ('three_years', 'irs_calendar')),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CHECK (num_nulls(company_tax_id_key_id, company_tax_id_iv, company_tax_id_ciphertext, company_tax_id_auth_tag) IN (0, 4))
    )`.execute(db);

  await sql`
    CREATE TABLE tax_records (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      form_type text NOT NULL CHECK (form_type IN ('w9', 'w8ben', 'w8bene')),
      status text NOT NULL CHECK (status IN ('submitted', 'approved', 'revoked', 'expired')),
      legal_name text NOT NULL,
      country text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
      tin_type text CHECK (tin_type IN ('ssn', 'ein', 'foreign')),
      tax_id_key_id text,
      tax_id_iv bytea CHECK (octet_length(tax_id_iv) = 12),
      tax_id_ciphertext bytea,
      tax_id_auth_tag bytea CHECK (octet_length(tax_id_auth_tag) = 16),
      tax_classification text,
      address jsonb,
      permanent_address jsonb,
      date_of_birth date,
      chapter3_status text,
      foreign_tin_not_required boolean NOT NULL DEFAULT false,
      foreign_tin_not_required_reason text,
      signature_name text NOT NULL,
      signature_date date NOT NULL,
      submitted_at timestamptz NOT NULL,
      approved_at timestamptz,
      approved_by text,
      expires_at timestamptz,
      expired_at timestamptz,
      revoked_at timestamptz,
      revoked_by text,
      revoked_reason text,
      superseded_at timestamptz,
      -- Deferred: the replacing record is inserted after the one it replaces is marked.
      superseded_by uuid REFERENCES tax_records (id) DEFERRABLE INITIALLY DEFERRED,
      CHECK (num_nulls(tax_id_key_id, tax_id_iv, tax_id_ciphertext, tax_id_auth_tag) IN (0, 4)),
      CHECK (form_type <> 'w9' OR (tax_id_ciphertext IS NOT NULL AND expires_at IS NULL)),
      CHECK (status <> 'approved' OR approved_at IS NOT NULL),
      CHECK (status <> 'revoked' OR (revoked_at IS NOT NULL AND revoked_reason IS NOT NULL)),
      CHECK ((superseded_at IS NULL) = (superseded_by IS NULL))
    )`.execute(db);
  // The rule the whole state machine rests on: one current record per (project, user).
  await sql`
    CREATE UNIQUE INDEX tax_records_one_current ON tax_records (project_id, identifier_type, identifier)
    WHERE superseded_at IS NULL`.execute(db);
  // The review queue: current records of a project by status, oldest submission first.
  await sql`
    CREATE INDEX tax_records_review_idx ON tax_records (project_id, status, submitted_at, id)
    WHERE superseded_at IS NULL`.execute(db);
  // The expiry sweep reads only approved current W-8s, soonest expiry first.
  await sql`
    CREATE INDEX tax_records_expiry_idx ON tax_records (expires_at)
    WHERE status = 'approved' AND expires_at IS NOT NULL AND superseded_at IS NULL`.execute(db);
  await sql`CREATE INDEX tax_records_history_idx ON tax_records (project_id, identifier_type, identifier, submitted_at)`.execute(db);

  await sql`
    CREATE TABLE tax_status_events (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      record_id uuid NOT NULL REFERENCES tax_records (id),
      project_id uuid NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      from_status text NOT NULL,
      to_status text NOT NULL CHECK (to_status IN ('submitted', 'approved', 'revoked', 'expired')),
      reason text,
      actor_type text NOT NULL CHECK (actor_type IN ('affiliate', 'admin', 'system')),
      actor_id text,
      occurred_at timestamptz NOT NULL
    )`.execute(db);
  // A record reaches each status at most once, so a redelivered expiry job cannot record twice.
  await sql`CREATE UNIQUE INDEX tax_status_events_once ON tax_status_events (record_id, to_status)`.execute(db);
  await sql`CREATE INDEX tax_status_events_user_idx ON tax_status_events (project_id, identifier_type, identifier, occurred_at)`.execute(db);

  await sql`
    CREATE TABLE tax_audit_log (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      project_id uuid NOT NULL,
      action text NOT NULL,
      actor_type text NOT NULL CHECK (actor_type IN ('api_key')),
      actor_id text NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      record_id uuid REFERENCES tax_records (id),
      request_id text,
      occurred_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX tax_audit_log_project_idx ON tax_audit_log (project_id, occurred_at DESC, id DESC)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE tax_audit_log, tax_status_events, tax_records, tax_settings`.execute(db);
}
