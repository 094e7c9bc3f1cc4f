import { type Kysely, sql } from 'kysely';

/**
 * Tracking events from the @fuul/sdk (POST /api/v1/events, docs/tracking.md) and what the agency
 * derives from them:
 *
 * - `tracking_event_batches`: one row per accepted request (one event or a batch), written in the
 *   same transaction as its events. The row is the durable job: a relay hands unprocessed batches to
 *   the processing job, which marks `processed_at` in the transaction that applies them, so a batch
 *   is applied once whatever crashes.
 * - `tracking_events`: the events, append-only, partitioned by month of `received_at` so that
 *   retention drops whole partitions. `signature_verified` is decided by the gateway before the write
 *   (a connect_wallet whose signature does not verify is refused, never stored as verified).
 * - `tracking_event_dedup`: a `dedup_id` (from `args` or `metadata`) is accepted once per project.
 * - `tracking_event_outcomes`: what processing decided for an event that could attribute (a
 *   pageview naming a code, a connect_wallet): the event row itself stays as received.
 * - `code_clicks`: one click per code, tracking id and UTC day (a pageview whose referrer names the
 *   code), the source of the clicks figures.
 * - `tracking_links`: which wallet a tracking id connected (verified connect_wallet), first link kept.
 * - `affiliate_codes.user_rebate_rate_bps`: the share of the affiliate's own reward that goes to the
 *   users it refers through the code (the SDK's `user_rebate_rate` 0..0.2 is 0..2000 here).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE tracking_event_batches (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      received_at timestamptz NOT NULL,
      event_count integer NOT NULL CHECK (event_count > 0),
      processed_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX tracking_event_batches_unprocessed_idx ON tracking_event_batches (received_at) WHERE processed_at IS NULL`.execute(db);

  await sql`
    CREATE TABLE tracking_events (
      id uuid NOT NULL,
      project_id uuid NOT NULL,
      batch_id uuid NOT NULL,
      received_at timestamptz NOT NULL,
      name text NOT NULL,
      tracking_id text NOT NULL,
      identifier_type text,
      identifier text,
      signature_verified boolean NOT NULL DEFAULT false,
      referrer text,
      dedup_id text,
      args jsonb NOT NULL DEFAULT '{}',
      metadata jsonb NOT NULL DEFAULT '{}',
      PRIMARY KEY (received_at, id),
      CHECK ((identifier IS NULL) = (identifier_type IS NULL))
    ) PARTITION BY RANGE (received_at)`.execute(db);
  // Events not yet in a monthly partition land here; the retention job creates months ahead.
  await sql`CREATE TABLE tracking_events_default PARTITION OF tracking_events DEFAULT`.execute(db);
  // A batch's events share its received_at: they are found by the primary key's (received_at, then batch_id), so no index by batch.
  // By user only where there is one (the events list's filter; most events are anonymous pageviews).
  await sql`
    CREATE INDEX tracking_events_user_idx ON tracking_events (project_id, identifier_type, identifier, name, received_at)
    WHERE identifier IS NOT NULL`.execute(db);

  await sql`
    CREATE TABLE tracking_event_dedup (
      project_id uuid NOT NULL,
      dedup_id text NOT NULL,
      event_id uuid NOT NULL,
      received_at timestamptz NOT NULL,
      PRIMARY KEY (project_id, dedup_id)
    )`.execute(db);

  await sql`
    CREATE TABLE tracking_event_outcomes (
      project_id uuid NOT NULL,
      event_id uuid PRIMARY KEY,
      outcome text NOT NULL,
      affiliate_id uuid,
      code text,
      decided_at timestamptz NOT NULL
    )`.execute(db);

  await sql`
    CREATE TABLE code_clicks (
      project_id uuid NOT NULL,
      code text NOT NULL,
      tracking_id text NOT NULL,
      day date NOT NULL,
      first_at timestamptz NOT NULL,
      PRIMARY KEY (project_id, code, tracking_id, day)
    )`.execute(db);
  // Clicks per code: `code` is stored lower-cased, as codes are compared (affiliate_codes_project_code_key).
  await sql`CREATE INDEX code_clicks_tracking_idx ON code_clicks (project_id, tracking_id, first_at)`.execute(db);

  await sql`
    CREATE TABLE tracking_links (
      project_id uuid NOT NULL,
      tracking_id text NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      linked_at timestamptz NOT NULL,
      PRIMARY KEY (project_id, tracking_id)
    )`.execute(db);

  await sql`
    ALTER TABLE affiliate_codes ADD COLUMN user_rebate_rate_bps integer CHECK (user_rebate_rate_bps BETWEEN 0 AND 2000)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE affiliate_codes DROP COLUMN user_rebate_rate_bps`.execute(db);
  await sql`DROP TABLE tracking_links, code_clicks, tracking_event_outcomes, tracking_event_dedup, tracking_events, tracking_event_batches`.execute(
    db,
  );
}
