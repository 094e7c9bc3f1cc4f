import { type Kysely, sql } from 'kysely';

const METRICS = ['volume_usd', 'revenue_usd', 'conversions', 'end_users', 'referred_volume_usd'] as const;

/**
 * The affiliate list's filters on status and region, index-backed for every sort (any
 * page of any filter and sort at 100,000 affiliates).
 *
 * - By region and join date: an index of its own (status included), which also counts a region's
 *   affiliates without the table (it read every affiliate of the project: 47 ms a page).
 * - By a metric: affiliate_metrics carries a copy of its affiliate's status and region, and each
 *   metric's index includes them, so a filtered page is one range of that index with the filter
 *   checked in it (it joined and sorted every matching affiliate: 1.3-2.5 s for a middle page of
 *   the active ones). The copy is kept by triggers: taken from the affiliate when the row is
 *   inserted (whichever path inserts it), and rewritten when the affiliate's status or region changes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX affiliates_region_idx ON affiliates (project_id, region, joined_at DESC, id DESC) INCLUDE (status)`.execute(db);

  await sql`ALTER TABLE affiliate_metrics ADD COLUMN status text, ADD COLUMN region text`.execute(db);
  await sql`UPDATE affiliate_metrics m SET status = a.status, region = a.region FROM affiliates a WHERE a.id = m.affiliate_id`.execute(db);
  await sql`ALTER TABLE affiliate_metrics ALTER COLUMN status SET NOT NULL`.execute(db);
  await sql`
    CREATE FUNCTION affiliate_metrics_copy_filters() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      SELECT a.status, a.region INTO NEW.status, NEW.region FROM affiliates a WHERE a.id = NEW.affiliate_id;
      RETURN NEW;
    END
    $$`.execute(db);
  await sql`
    CREATE TRIGGER affiliate_metrics_copy_filters BEFORE INSERT ON affiliate_metrics
    FOR EACH ROW EXECUTE FUNCTION affiliate_metrics_copy_filters()`.execute(db);
  await sql`
    CREATE FUNCTION affiliate_metrics_follow_filters() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      UPDATE affiliate_metrics SET status = NEW.status, region = NEW.region WHERE affiliate_id = NEW.id;
      RETURN NULL;
    END
    $$`.execute(db);
  await sql`
    CREATE TRIGGER affiliate_metrics_follow_filters AFTER UPDATE OF status, region ON affiliates
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.region IS DISTINCT FROM NEW.region)
    EXECUTE FUNCTION affiliate_metrics_follow_filters()`.execute(db);

  for (const metric of METRICS) {
    await sql`DROP INDEX ${sql.raw(`affiliate_metrics_${metric}_idx`)}`.execute(db);
    await sql`CREATE INDEX ${sql.raw(`affiliate_metrics_${metric}_idx`)} ON affiliate_metrics (project_id, ${sql.ref(metric)}, affiliate_id) INCLUDE (status, region)`.execute(
      db,
    );
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const metric of METRICS) {
    await sql`DROP INDEX ${sql.raw(`affiliate_metrics_${metric}_idx`)}`.execute(db);
    await sql`CREATE INDEX ${sql.raw(`affiliate_metrics_${metric}_idx`)} ON affiliate_metrics (project_id, ${sql.ref(metric)}, affiliate_id)`.execute(
      db,
    );
  }
  await sql`DROP TRIGGER affiliate_metrics_follow_filters ON affiliates`.execute(db);
  await sql`DROP FUNCTION affiliate_metrics_follow_filters()`.execute(db);
  await sql`DROP TRIGGER affiliate_metrics_copy_filters ON affiliate_metrics`.execute(db);
  await sql`DROP FUNCTION affiliate_metrics_copy_filters()`.execute(db);
  await sql`ALTER TABLE affiliate_metrics DROP COLUMN status, DROP COLUMN region`.execute(db);
  await sql`DROP INDEX affiliates_region_idx`.execute(db);
}
