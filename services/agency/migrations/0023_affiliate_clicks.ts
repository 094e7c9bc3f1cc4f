import { type Kysely, sql } from 'kysely';

/** The namespace and buckets of 0008's advisory locks on users (unchanged here). */
const USER_LOCK_NAMESPACE = 10_008;
const USER_LOCK_BUCKETS = 64;

/** The figures 0008's entries copy from the metrics row, before this migration and after. */
const FIGURES = ['volume_usd', 'revenue_usd', 'conversions', 'end_users', 'referred_volume_usd'];
const FIGURES_WITH_CLICKS = [...FIGURES, 'clicks'];

/**
 * An affiliate's clicks on its metrics row (docs/affiliates.md#clicks-and-conversion-rate): the
 * affiliate list shows them (and the conversion rate, end_users ÷ clicks) beside the other figures
 * and sorts by them as by any metric, without counting `code_clicks` per row.
 *
 * - `affiliate_metrics.clicks`: the `code_clicks` rows of the affiliate's codes, all time. Kept by a
 *   statement trigger on `code_clicks` in the transaction that writes the clicks, whoever writes them
 *   (the tracking batch job, a test): the new rows, grouped by the affiliate holding each code
 *   (`affiliate_codes_project_code_key`, by lower(code) as code_clicks stores it), added in affiliate id
 *   order, as the metrics consumer locks metrics rows. A click of no affiliate's code adds nothing;
 *   `code_clicks` rows are never deleted or moved (a code is never given to another affiliate).
 * - The sort `clicks` as 0005/0007/0009/0018 index every metric: on the metrics row (its own index, one led
 *   by the region, partial ones of the suspended and of the flagged), and a copy on
 *   `affiliate_filter_entries` with its index; 0008's functions that write the entries copy it too.
 * - `code_clicks_code_day_idx`: a code's clicks of a range of days, one index range (the affiliate
 *   detail's chart of clicks per day; the primary key has the tracking id after the code).
 * - The clicks already stored are counted once here (the metrics trigger copies them onto the entries).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE affiliate_metrics ADD COLUMN clicks bigint NOT NULL DEFAULT 0`.execute(db);
  await sql`ALTER TABLE affiliate_filter_entries ADD COLUMN clicks bigint NOT NULL DEFAULT 0`.execute(db);
  await sql`CREATE INDEX affiliate_metrics_clicks_idx ON affiliate_metrics (project_id, clicks, affiliate_id) INCLUDE (status, region)`.execute(db);
  await sql`CREATE INDEX affiliate_metrics_region_clicks_idx ON affiliate_metrics (project_id, region, clicks, affiliate_id) INCLUDE (status)`.execute(
    db,
  );
  for (const status of ['suspended', 'flagged']) {
    await sql`
      CREATE INDEX ${sql.raw(`affiliate_metrics_${status}_clicks_idx`)} ON affiliate_metrics (project_id, clicks, affiliate_id) INCLUDE (region)
      WHERE status = ${sql.lit(status)}`.execute(db);
  }
  await sql`
    CREATE INDEX affiliate_filter_entries_clicks_idx ON affiliate_filter_entries (project_id, kind, value, clicks, affiliate_id) INCLUDE (status, region)`.execute(
    db,
  );
  await replaceEntryFunctions(db, FIGURES_WITH_CLICKS);
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
  await replaceEntryFunctions(db, FIGURES);
  await sql`ALTER TABLE affiliate_filter_entries DROP COLUMN clicks`.execute(db);
  await sql`ALTER TABLE affiliate_metrics DROP COLUMN clicks`.execute(db);
}

/**
 * 0008's functions that write `affiliate_filter_entries`, as 0008 wrote them, copying `figures` from
 * the metrics row (memberships, a new affiliate, conversion names, the metrics row changed).
 */
async function replaceEntryFunctions(db: Kysely<unknown>, figures: readonly string[]): Promise<void> {
  const columns = sql.raw(['affiliate_id', 'kind', 'value', 'project_id', 'status', 'region', 'joined_at', ...figures].join(', '));
  const of = (alias: string) => sql.raw(figures.map((figure) => `${alias}.${figure}`).join(', '));
  const set = sql.raw(figures.map((figure) => `${figure} = n.${figure}`).join(', '));
  await sql`
    CREATE OR REPLACE FUNCTION affiliate_filter_entries_follow_memberships() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock_shared(${sql.lit(USER_LOCK_NAMESPACE)}, b.bucket)
      FROM (SELECT DISTINCT abs(hashtext(project_id::text || identifier_type || identifier) % ${sql.lit(USER_LOCK_BUCKETS)}) AS bucket FROM changed ORDER BY 1) b;
      PERFORM 1 FROM affiliate_metrics m
      WHERE m.affiliate_id IN (SELECT a.id FROM changed c JOIN affiliates a ON a.project_id = c.project_id AND a.identifier_type = c.identifier_type AND a.identifier = c.identifier)
      ORDER BY m.affiliate_id FOR NO KEY UPDATE;
      DELETE FROM affiliate_filter_entries e
      USING (SELECT DISTINCT a.id, a.identifier_type, a.identifier, c.project_id, c.segment_id
             FROM changed c JOIN affiliates a ON a.project_id = c.project_id AND a.identifier_type = c.identifier_type AND a.identifier = c.identifier) u
      WHERE e.affiliate_id = u.id AND e.kind = 'audience' AND e.value = u.segment_id::text
        AND NOT EXISTS (SELECT 1 FROM audience_memberships am WHERE am.segment_id = u.segment_id AND am.project_id = u.project_id
                          AND am.identifier_type = u.identifier_type AND am.identifier = u.identifier AND am.present);
      INSERT INTO affiliate_filter_entries (${columns})
      SELECT DISTINCT ON (a.id, c.segment_id) a.id, 'audience', c.segment_id::text, a.project_id, m.status, m.region, a.joined_at, ${of('m')}
      FROM changed c
      JOIN affiliates a ON a.project_id = c.project_id AND a.identifier_type = c.identifier_type AND a.identifier = c.identifier
      JOIN affiliate_metrics m ON m.affiliate_id = a.id
      WHERE EXISTS (SELECT 1 FROM audience_memberships am WHERE am.segment_id = c.segment_id AND am.project_id = c.project_id
                      AND am.identifier_type = a.identifier_type AND am.identifier = a.identifier AND am.present)
      ORDER BY a.id, c.segment_id
      ON CONFLICT (affiliate_id, kind, value) DO NOTHING;
      RETURN NULL;
    END
    $$`.execute(db);
  await sql`
    CREATE OR REPLACE FUNCTION affiliate_filter_entries_new_affiliate() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock(${sql.lit(USER_LOCK_NAMESPACE)}, b.bucket)
      FROM (SELECT DISTINCT abs(hashtext(a.project_id::text || a.identifier_type || a.identifier) % ${sql.lit(USER_LOCK_BUCKETS)}) AS bucket
            FROM added n JOIN affiliates a ON a.id = n.affiliate_id ORDER BY 1) b;
      INSERT INTO affiliate_filter_entries (${columns})
      SELECT DISTINCT ON (a.id, am.segment_id) a.id, 'audience', am.segment_id::text, a.project_id, n.status, n.region, a.joined_at, ${of('n')}
      FROM added n JOIN affiliates a ON a.id = n.affiliate_id
      JOIN audience_memberships am ON am.project_id = a.project_id AND am.identifier_type = a.identifier_type AND am.identifier = a.identifier AND am.present
      ORDER BY a.id, am.segment_id
      ON CONFLICT (affiliate_id, kind, value) DO NOTHING;
      RETURN NULL;
    END
    $$`.execute(db);
  await sql`
    CREATE OR REPLACE FUNCTION affiliate_filter_entries_follow_metrics() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      UPDATE affiliate_filter_entries e
      SET status = n.status, region = n.region, ${set}
      FROM changed n
      WHERE e.affiliate_id = n.affiliate_id
        AND (e.status, e.region, ${of('e')}) IS DISTINCT FROM (n.status, n.region, ${of('n')});
      RETURN NULL;
    END
    $$`.execute(db);
  await sql`
    CREATE OR REPLACE FUNCTION affiliate_filter_entries_follow_names() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM 1 FROM affiliate_metrics m WHERE m.affiliate_id IN (SELECT affiliate_id FROM added) ORDER BY m.affiliate_id FOR NO KEY UPDATE;
        INSERT INTO affiliate_filter_entries (${columns})
        SELECT a.id, 'conversion', n.name, a.project_id, m.status, m.region, a.joined_at, ${of('m')}
        FROM added n JOIN affiliates a ON a.id = n.affiliate_id JOIN affiliate_metrics m ON m.affiliate_id = a.id
        ORDER BY a.id, n.name
        ON CONFLICT (affiliate_id, kind, value) DO NOTHING;
      ELSE
        DELETE FROM affiliate_filter_entries e USING removed o WHERE e.affiliate_id = o.affiliate_id AND e.kind = 'conversion' AND e.value = o.name;
      END IF;
      RETURN NULL;
    END
    $$`.execute(db);
}
