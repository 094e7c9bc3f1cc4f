import { type Kysely, sql } from 'kysely';
import { createOutboxTables, dropOutboxTables } from '../../platform/outbox/tables';

export async function up(db: Kysely<unknown>): Promise<void> {
  // processed_events makes a redelivered event fan out once; the outbox stays empty (no events of its own yet).
  await createOutboxTables(db);

  await sql`
    CREATE TABLE webhooks (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      url text NOT NULL,
      events text[] NOT NULL,
      enabled boolean NOT NULL,
      -- The signing secret, sealed (AES-256-GCM, bound to the webhook's id): it must stay usable for HMAC.
      secret_key_id text NOT NULL,
      secret_iv bytea NOT NULL,
      secret_ciphertext bytea NOT NULL,
      secret_auth_tag bytea NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX webhooks_project_idx ON webhooks (project_id, created_at, id)`.execute(db);

  // One row per event that had a subscriber: what every delivery of it sends (same id, same body).
  await sql`
    CREATE TABLE webhook_events (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      type text NOT NULL,
      data jsonb NOT NULL,
      created_at timestamptz NOT NULL
    )`.execute(db);

  await sql`
    CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY,
      webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
      event_id uuid NOT NULL REFERENCES webhook_events (id),
      status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      last_response_code integer,
      last_error text,
      next_attempt_at timestamptz,
      -- Retries run from here (created, or resent) for the retry window and the attempts allowed after retry_base.
      retry_from timestamptz NOT NULL,
      retry_base integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL,
      delivered_at timestamptz,
      -- A redelivered event creates nothing twice.
      UNIQUE (event_id, webhook_id)
    )`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_log_idx ON webhook_deliveries (webhook_id, created_at DESC, id DESC)`.execute(db);
  // The relay's read: pending deliveries, oldest first.
  await sql`CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (created_at, id) WHERE status = 'pending'`.execute(db);

  await sql`
    CREATE TABLE webhook_delivery_attempts (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
      attempt integer NOT NULL,
      attempted_at timestamptz NOT NULL,
      response_code integer,
      error text,
      duration_ms integer NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX webhook_delivery_attempts_delivery_idx ON webhook_delivery_attempts (delivery_id, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE webhook_delivery_attempts, webhook_deliveries, webhook_events, webhooks`.execute(db);
  await dropOutboxTables(db);
}
