import { type Kysely, sql } from 'kysely';

const METRICS = ['volume_usd', 'revenue_usd', 'conversions', 'end_users', 'referred_volume_usd'] as const;

/**
 * The affiliate status `flagged` (docs/affiliates.md#flagged-affiliates): an admin's mark that the affiliate's
 * new earnings wait for review, beside the specification's `suspended`. Modelled as suspension is:
 * the current status on `affiliates` (the counts' and the metrics' triggers copy it), and one row per
 * flag period in `affiliate_flags` (open while it lasts), which the history reads.
 *
 * - The status check gains 'flagged'.
 * - At most one open flag per affiliate, whatever runs concurrently.
 * - Per metric, a partial index of the flagged (region included), as 0009 has for the suspended: a
 *   flagged filter on a metric sort is one range of it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE affiliates DROP CONSTRAINT affiliates_status_check`.execute(db);
  await sql`ALTER TABLE affiliates ADD CONSTRAINT affiliates_status_check CHECK (status IN ('active', 'flagged', 'suspended'))`.execute(db);
  await sql`
    CREATE TABLE affiliate_flags (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      affiliate_id uuid NOT NULL REFERENCES affiliates (id),
      project_id uuid NOT NULL,
      reason text NOT NULL,
      flagged_at timestamptz NOT NULL,
      flagged_by text,
      unflagged_at timestamptz,
      unflagged_by text,
      CHECK (unflagged_at IS NULL OR unflagged_at >= flagged_at)
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX affiliate_flags_one_open ON affiliate_flags (affiliate_id) WHERE unflagged_at IS NULL`.execute(db);
  await sql`CREATE INDEX affiliate_flags_affiliate_idx ON affiliate_flags (affiliate_id, flagged_at)`.execute(db);
  for (const metric of METRICS) {
    await sql`
      CREATE INDEX ${sql.raw(`affiliate_metrics_flagged_${metric}_idx`)} ON affiliate_metrics (project_id, ${sql.ref(metric)}, affiliate_id) INCLUDE (region)
      WHERE status = 'flagged'`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const metric of METRICS) await sql`DROP INDEX ${sql.raw(`affiliate_metrics_flagged_${metric}_idx`)}`.execute(db);
  await sql`DROP TABLE affiliate_flags`.execute(db);
  await sql`UPDATE affiliates SET status = 'active' WHERE status = 'flagged'`.execute(db);
  await sql`ALTER TABLE affiliates DROP CONSTRAINT affiliates_status_check`.execute(db);
  await sql`ALTER TABLE affiliates ADD CONSTRAINT affiliates_status_check CHECK (status IN ('active', 'suspended'))`.execute(db);
}
