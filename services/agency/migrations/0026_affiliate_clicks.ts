import { type Kysely, sql } from 'kysely';

/**
 * An affiliate's clicks on its metrics row (docs/affiliates.md#clicks-and-conversion-rate): the
 * affiliate list shows them (and the conversion rate, end_users ÷ clicks) beside the other figures
 * without counting `code_clicks` per row.
 *
 * - `affiliate_metrics.clicks`: the `code_clicks` rows of the affiliate's codes, all time.
 * - Kept by a statement trigger on `code_clicks` in the transaction that writes the clicks, whoever
 *   writes them (the tracking batch job, a test): the new rows, grouped by the affiliate holding
 *   each code (`affiliate_codes_project_code_key`, by lower(code) as code_clicks stores it), added
 *   in affiliate id order, as the metrics consumer locks metrics rows. A click of no affiliate's code
 *   adds nothing; `code_clicks` rows are never deleted or moved (codes are not given to another
 *   affiliate), so only inserts count.
 * - `code_clicks_code_day_idx`: a code's clicks of a range of days, one index range (the affiliate
 *   detail's chart of clicks per day; the primary key leads with the tracking id after the code).
 * - The clicks already stored are counted once here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE affiliate_metrics ADD COLUMN clicks bigint NOT NULL DEFAULT 0`.execute(db);
  await sql`CREATE INDEX code_clicks_code_day_idx ON code_clicks (project_id, code, day)`.execute(db);
  await sql`
    CREATE FUNCTION affiliate_metrics_count_clicks() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      UPDATE affiliate_metrics m SET clicks = m.clicks + d.n
      FROM (
        SELECT c.affiliate_id, count(*) AS n
        FROM added k JOIN affiliate_codes c ON c.project_id = k.project_id AND lower(c.code) = k.code
        GROUP BY c.affiliate_id ORDER BY c.affiliate_id
      ) d
      WHERE m.affiliate_id = d.affiliate_id;
      RETURN NULL;
    END
    $$`.execute(db);
  await sql`
    CREATE TRIGGER affiliate_metrics_count_clicks AFTER INSERT ON code_clicks REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION affiliate_metrics_count_clicks()`.execute(db);
  await sql`
    UPDATE affiliate_metrics m SET clicks = d.n
    FROM (
      SELECT c.affiliate_id, count(*) AS n
      FROM code_clicks k JOIN affiliate_codes c ON c.project_id = k.project_id AND lower(c.code) = k.code
      GROUP BY c.affiliate_id
    ) d
    WHERE m.affiliate_id = d.affiliate_id`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER affiliate_metrics_count_clicks ON code_clicks`.execute(db);
  await sql`DROP FUNCTION affiliate_metrics_count_clicks()`.execute(db);
  await sql`DROP INDEX code_clicks_code_day_idx`.execute(db);
  await sql`ALTER TABLE affiliate_metrics DROP COLUMN clicks`.execute(db);
}
