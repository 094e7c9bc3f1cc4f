import { type Kysely, sql } from 'kysely';

/**
 * What the processing of tracking events (services/agency/domain/tracking-processing.service.ts)
 * needs beyond migration 0020:
 *
 * - `program_settings.attribution_window_days` (1..365, default 30) and `attribution_model`
 *   (`first_click` | `last_click`, default first): which click of a tracking id a verified
 *   connect_wallet is attributed to. Existing rows take the defaults.
 * - `tracking_event_batches.failed_at` / `failure`: a batch whose job kept failing after the relay put
 *   it back as often as it may is given up with a reason, so it is no longer pending (and shows why).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE program_settings
      ADD COLUMN attribution_window_days integer NOT NULL DEFAULT 30 CHECK (attribution_window_days BETWEEN 1 AND 365),
      ADD COLUMN attribution_model text NOT NULL DEFAULT 'first_click' CHECK (attribution_model IN ('first_click', 'last_click'))`.execute(db);
  await sql`
    ALTER TABLE tracking_event_batches
      ADD COLUMN failed_at timestamptz,
      ADD COLUMN failure text`.execute(db);
  await sql`DROP INDEX tracking_event_batches_unprocessed_idx`.execute(db);
  await sql`CREATE INDEX tracking_event_batches_pending_idx ON tracking_event_batches (received_at) WHERE processed_at IS NULL AND failed_at IS NULL`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX tracking_event_batches_pending_idx`.execute(db);
  await sql`CREATE INDEX tracking_event_batches_unprocessed_idx ON tracking_event_batches (received_at) WHERE processed_at IS NULL`.execute(db);
  await sql`ALTER TABLE tracking_event_batches DROP COLUMN failed_at, DROP COLUMN failure`.execute(db);
  await sql`ALTER TABLE program_settings DROP COLUMN attribution_window_days, DROP COLUMN attribution_model`.execute(db);
}
