import { type Kysely, sql } from 'kysely';

const METRICS = ['volume_usd', 'revenue_usd', 'conversions', 'end_users', 'referred_volume_usd'] as const;

/**
 * The affiliate list's region and status filters on a metric sort, each one index range.
 * Since 0007 the filter was checked inside the metric's index over every affiliate: a region's middle
 * page read ten times its offset (one affiliate in ten is in it), the suspended ones' likewise.
 *
 * - Per metric, an index led by the region (status included): a region's page reads its own rows.
 * - Per metric, a partial index of the suspended (region included): the few that are; the active
 *   ones are most of the project, so the metric's own index finds them at once, and a conversion of
 *   an active affiliate does not write this index.
 * - `affiliate_region_counts`: affiliates per project, status and region, kept by a trigger as
 *   affiliate_counts is, so a region filter's total is not a count of its affiliates per page.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const metric of METRICS) {
    await sql`CREATE INDEX ${sql.raw(`affiliate_metrics_region_${metric}_idx`)} ON affiliate_metrics (project_id, region, ${sql.ref(metric)}, affiliate_id) INCLUDE (status)`.execute(
      db,
    );
    await sql`
      CREATE INDEX ${sql.raw(`affiliate_metrics_suspended_${metric}_idx`)} ON affiliate_metrics (project_id, ${sql.ref(metric)}, affiliate_id) INCLUDE (region)
      WHERE status = 'suspended'`.execute(db);
  }
  await sql`
    CREATE TABLE affiliate_region_counts (
      project_id uuid NOT NULL,
      status text NOT NULL,
      region text,
      affiliates bigint NOT NULL CHECK (affiliates >= 0),
      UNIQUE NULLS NOT DISTINCT (project_id, status, region)
    )`.execute(db);
  await sql`
    CREATE FUNCTION affiliate_region_counts_track() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      IF TG_OP = 'UPDATE' THEN
        IF NEW.status = OLD.status AND NEW.region IS NOT DISTINCT FROM OLD.region THEN RETURN NULL; END IF;
        UPDATE affiliate_region_counts SET affiliates = affiliates - 1
        WHERE project_id = OLD.project_id AND status = OLD.status AND region IS NOT DISTINCT FROM OLD.region;
      END IF;
      INSERT INTO affiliate_region_counts AS c (project_id, status, region, affiliates) VALUES (NEW.project_id, NEW.status, NEW.region, 1)
      ON CONFLICT (project_id, status, region) DO UPDATE SET affiliates = c.affiliates + 1;
      RETURN NULL;
    END
    $$`.execute(db);
  await sql`
    CREATE TRIGGER affiliate_region_counts_track AFTER INSERT OR UPDATE OF status, region ON affiliates
    FOR EACH ROW EXECUTE FUNCTION affiliate_region_counts_track()`.execute(db);
  await sql`INSERT INTO affiliate_region_counts (project_id, status, region, affiliates) SELECT project_id, status, region, count(*) FROM affiliates GROUP BY 1, 2, 3`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER affiliate_region_counts_track ON affiliates`.execute(db);
  await sql`DROP FUNCTION affiliate_region_counts_track()`.execute(db);
  await sql`DROP TABLE affiliate_region_counts`.execute(db);
  for (const metric of METRICS) {
    await sql`DROP INDEX ${sql.raw(`affiliate_metrics_region_${metric}_idx`)}`.execute(db);
    await sql`DROP INDEX ${sql.raw(`affiliate_metrics_suspended_${metric}_idx`)}`.execute(db);
  }
}
