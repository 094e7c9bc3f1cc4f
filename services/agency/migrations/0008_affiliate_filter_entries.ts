import { type Kysely, sql } from 'kysely';

/** Every order of the list: when the affiliate joined, and each metric. */
const SORT_KEYS = ['joined_at', 'volume_usd', 'revenue_usd', 'conversions', 'end_users', 'referred_volume_usd'] as const;

/** The namespace of the advisory locks below (pg_advisory_xact_lock(int, int)); the second key is a bucket of users. */
const USER_LOCK_NAMESPACE = 10_008;
/** Users hashed into this many lock buckets: a membership batch takes at most this many shared locks. */
const USER_LOCK_BUCKETS = 64;

/**
 * The affiliate list's `audience`, `audience_ids` and `conversions` filters, index-backed for every
 * sort (any page of any filter and sort at 100,000 affiliates). Before, a page of
 * members of a segment or of affiliates with a conversion name walked a metric's index over every
 * affiliate and probed each for the filter: 0.5-0.8 s for a middle page, when the index end held no
 * match.
 *
 * `affiliate_filter_entries` has one row per affiliate and filter value it matches (kind `audience`:
 * a segment it is a member of, static or dynamic entry; kind `conversion`: a conversion name it has
 * at least one of), with copies of what the list sorts by and its status and region; one index per
 * sort key leads with (project, kind, value), so a filtered page is one range of that index, status
 * and region checked in it. `affiliate_filter_counts` counts the rows per value, status and region:
 * the page's total without counting the matches.
 *
 * Kept by triggers in the transactions that change what they copy, whichever path writes it:
 * memberships (the audience events' consumer), a new affiliate's metrics row (its memberships may
 * precede it), per-name counts (the metrics consumer and the rebuild), and the metrics row (figures,
 * status and region, which 0007 copies onto it). Races between those transactions are closed by locks:
 * - a membership change locks the metrics rows of its users' affiliates (as a metrics change does)
 *   before it reads memberships again, so the last of two writers for one affiliate sees both;
 * - a membership change takes a shared advisory lock on its users' buckets and a new affiliate an
 *   exclusive one on its user's, so one of the two always sees the other committed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE affiliate_filter_entries (
      affiliate_id uuid NOT NULL REFERENCES affiliates (id),
      kind text NOT NULL CHECK (kind IN ('audience', 'conversion')),
      value text NOT NULL,
      project_id uuid NOT NULL,
      status text NOT NULL,
      region text,
      joined_at timestamptz NOT NULL,
      volume_usd numeric NOT NULL,
      revenue_usd numeric NOT NULL,
      conversions bigint NOT NULL,
      end_users bigint NOT NULL,
      referred_volume_usd numeric NOT NULL,
      PRIMARY KEY (affiliate_id, kind, value)
    )`.execute(db);
  for (const key of SORT_KEYS) {
    await sql`CREATE INDEX ${sql.raw(`affiliate_filter_entries_${key}_idx`)} ON affiliate_filter_entries (project_id, kind, value, ${sql.ref(key)}, affiliate_id) INCLUDE (status, region)`.execute(
      db,
    );
  }
  await sql`
    CREATE TABLE affiliate_filter_counts (
      project_id uuid NOT NULL,
      kind text NOT NULL,
      value text NOT NULL,
      status text NOT NULL,
      region text,
      affiliates bigint NOT NULL CHECK (affiliates >= 0),
      UNIQUE NULLS NOT DISTINCT (project_id, kind, value, status, region)
    )`.execute(db);

  // The counts follow the entries (net change per key, applied in key order: concurrent writers lock counts in one order).
  await sql`
    CREATE FUNCTION affiliate_filter_counts_track() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO affiliate_filter_counts AS c (project_id, kind, value, status, region, affiliates)
        SELECT project_id, kind, value, status, region, count(*) FROM added GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT (project_id, kind, value, status, region) DO UPDATE SET affiliates = c.affiliates + excluded.affiliates;
      ELSIF TG_OP = 'DELETE' THEN
        UPDATE affiliate_filter_counts c SET affiliates = c.affiliates - d.n
        FROM (SELECT project_id, kind, value, status, region, count(*) AS n FROM removed GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5) d
        WHERE (c.project_id, c.kind, c.value, c.status) = (d.project_id, d.kind, d.value, d.status) AND c.region IS NOT DISTINCT FROM d.region;
      ELSE
        -- Moved from one status or region to another: the keys left lose, then the keys joined gain (an
        -- upsert's row must pass the CHECK before it meets the conflict, so losses are plain updates).
        UPDATE affiliate_filter_counts c SET affiliates = c.affiliates + d.n
        FROM (
          SELECT project_id, kind, value, status, region, sum(n) AS n FROM (
            SELECT project_id, kind, value, status, region, 1 AS n FROM added
            UNION ALL SELECT project_id, kind, value, status, region, -1 FROM removed
          ) moves GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) < 0 ORDER BY 1, 2, 3, 4, 5
        ) d
        WHERE (c.project_id, c.kind, c.value, c.status) = (d.project_id, d.kind, d.value, d.status) AND c.region IS NOT DISTINCT FROM d.region;
        INSERT INTO affiliate_filter_counts AS c (project_id, kind, value, status, region, affiliates)
        SELECT project_id, kind, value, status, region, sum(n) FROM (
          SELECT project_id, kind, value, status, region, 1 AS n FROM added
          UNION ALL SELECT project_id, kind, value, status, region, -1 FROM removed
        ) moves GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) > 0 ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT (project_id, kind, value, status, region) DO UPDATE SET affiliates = c.affiliates + excluded.affiliates;
      END IF;
      RETURN NULL;
    END
    $$`.execute(db);
  await sql`CREATE TRIGGER affiliate_filter_counts_added AFTER INSERT ON affiliate_filter_entries REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION affiliate_filter_counts_track()`.execute(
    db,
  );
  await sql`CREATE TRIGGER affiliate_filter_counts_removed AFTER DELETE ON affiliate_filter_entries REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION affiliate_filter_counts_track()`.execute(
    db,
  );
  await sql`
    CREATE TRIGGER affiliate_filter_counts_moved AFTER UPDATE ON affiliate_filter_entries REFERENCING OLD TABLE AS removed NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION affiliate_filter_counts_track()`.execute(db);

  // Memberships: the changed users' entries for the changed segments, recomputed from every kind of entry.
  await sql`
    CREATE FUNCTION affiliate_filter_entries_follow_memberships() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock_shared(${sql.lit(USER_LOCK_NAMESPACE)}, b.bucket)
      FROM (SELECT DISTINCT abs(hashtext(project_id::text || identifier_type || identifier) % ${sql.lit(USER_LOCK_BUCKETS)}) AS bucket FROM changed ORDER BY 1) b;
      -- Their metrics rows locked (in id order), then everything read afresh (a new snapshot per statement).
      PERFORM 1 FROM affiliate_metrics m
      WHERE m.affiliate_id IN (SELECT a.id FROM changed c JOIN affiliates a ON a.project_id = c.project_id AND a.identifier_type = c.identifier_type AND a.identifier = c.identifier)
      ORDER BY m.affiliate_id FOR NO KEY UPDATE;
      DELETE FROM affiliate_filter_entries e
      USING (SELECT DISTINCT a.id, a.identifier_type, a.identifier, c.project_id, c.segment_id
             FROM changed c JOIN affiliates a ON a.project_id = c.project_id AND a.identifier_type = c.identifier_type AND a.identifier = c.identifier) u
      WHERE e.affiliate_id = u.id AND e.kind = 'audience' AND e.value = u.segment_id::text
        AND NOT EXISTS (SELECT 1 FROM audience_memberships am WHERE am.segment_id = u.segment_id AND am.project_id = u.project_id
                          AND am.identifier_type = u.identifier_type AND am.identifier = u.identifier AND am.present);
      INSERT INTO affiliate_filter_entries (affiliate_id, kind, value, project_id, status, region, joined_at, volume_usd, revenue_usd, conversions, end_users, referred_volume_usd)
      SELECT DISTINCT ON (a.id, c.segment_id) a.id, 'audience', c.segment_id::text, a.project_id, m.status, m.region, a.joined_at,
             m.volume_usd, m.revenue_usd, m.conversions, m.end_users, m.referred_volume_usd
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
  for (const [event, table] of [
    ['INSERT', 'NEW'],
    ['UPDATE', 'NEW'],
    ['DELETE', 'OLD'],
  ] as const) {
    await sql`
      CREATE TRIGGER ${sql.raw(`affiliate_filter_entries_membership_${event.toLowerCase()}`)} AFTER ${sql.raw(event)} ON audience_memberships
      REFERENCING ${sql.raw(table)} TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION affiliate_filter_entries_follow_memberships()`.execute(db);
  }

  // A new affiliate (its metrics row is created with it): the memberships its user already has.
  await sql`
    CREATE FUNCTION affiliate_filter_entries_new_affiliate() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock(${sql.lit(USER_LOCK_NAMESPACE)}, b.bucket)
      FROM (SELECT DISTINCT abs(hashtext(a.project_id::text || a.identifier_type || a.identifier) % ${sql.lit(USER_LOCK_BUCKETS)}) AS bucket
            FROM added n JOIN affiliates a ON a.id = n.affiliate_id ORDER BY 1) b;
      INSERT INTO affiliate_filter_entries (affiliate_id, kind, value, project_id, status, region, joined_at, volume_usd, revenue_usd, conversions, end_users, referred_volume_usd)
      SELECT DISTINCT ON (a.id, am.segment_id) a.id, 'audience', am.segment_id::text, a.project_id, n.status, n.region, a.joined_at,
             n.volume_usd, n.revenue_usd, n.conversions, n.end_users, n.referred_volume_usd
      FROM added n JOIN affiliates a ON a.id = n.affiliate_id
      JOIN audience_memberships am ON am.project_id = a.project_id AND am.identifier_type = a.identifier_type AND am.identifier = a.identifier AND am.present
      ORDER BY a.id, am.segment_id
      ON CONFLICT (affiliate_id, kind, value) DO NOTHING;
      RETURN NULL;
    END
    $$`.execute(db);
  await sql`
    CREATE TRIGGER affiliate_filter_entries_new_affiliate AFTER INSERT ON affiliate_metrics REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION affiliate_filter_entries_new_affiliate()`.execute(db);

  // The metrics row changed (figures, or the status and region copied onto it): every entry of the affiliate follows.
  await sql`
    CREATE FUNCTION affiliate_filter_entries_follow_metrics() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      UPDATE affiliate_filter_entries e
      SET status = n.status, region = n.region, volume_usd = n.volume_usd, revenue_usd = n.revenue_usd, conversions = n.conversions,
          end_users = n.end_users, referred_volume_usd = n.referred_volume_usd
      FROM changed n
      WHERE e.affiliate_id = n.affiliate_id
        AND (e.status, e.region, e.volume_usd, e.revenue_usd, e.conversions, e.end_users, e.referred_volume_usd)
            IS DISTINCT FROM (n.status, n.region, n.volume_usd, n.revenue_usd, n.conversions, n.end_users, n.referred_volume_usd);
      RETURN NULL;
    END
    $$`.execute(db);
  await sql`
    CREATE TRIGGER affiliate_filter_entries_follow_metrics AFTER UPDATE ON affiliate_metrics REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION affiliate_filter_entries_follow_metrics()`.execute(db);

  // Conversion names: an entry from an affiliate's first conversion of a name (its metrics row locked, as
  // the metrics consumer has it in the same transaction), gone with the count (the rebuild deletes and re-inserts them).
  await sql`
    CREATE FUNCTION affiliate_filter_entries_follow_names() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM 1 FROM affiliate_metrics m WHERE m.affiliate_id IN (SELECT affiliate_id FROM added) ORDER BY m.affiliate_id FOR NO KEY UPDATE;
        INSERT INTO affiliate_filter_entries (affiliate_id, kind, value, project_id, status, region, joined_at, volume_usd, revenue_usd, conversions, end_users, referred_volume_usd)
        SELECT a.id, 'conversion', n.name, a.project_id, m.status, m.region, a.joined_at, m.volume_usd, m.revenue_usd, m.conversions, m.end_users, m.referred_volume_usd
        FROM added n JOIN affiliates a ON a.id = n.affiliate_id JOIN affiliate_metrics m ON m.affiliate_id = a.id
        ORDER BY a.id, n.name
        ON CONFLICT (affiliate_id, kind, value) DO NOTHING;
      ELSE
        DELETE FROM affiliate_filter_entries e USING removed o WHERE e.affiliate_id = o.affiliate_id AND e.kind = 'conversion' AND e.value = o.name;
      END IF;
      RETURN NULL;
    END
    $$`.execute(db);
  await sql`
    CREATE TRIGGER affiliate_filter_entries_name_added AFTER INSERT ON affiliate_conversion_counts REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION affiliate_filter_entries_follow_names()`.execute(db);
  await sql`
    CREATE TRIGGER affiliate_filter_entries_name_removed AFTER DELETE ON affiliate_conversion_counts REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION affiliate_filter_entries_follow_names()`.execute(db);

  // What exists already (the count trigger fills the counts).
  await sql`
    INSERT INTO affiliate_filter_entries (affiliate_id, kind, value, project_id, status, region, joined_at, volume_usd, revenue_usd, conversions, end_users, referred_volume_usd)
    SELECT a.id, 'conversion', cc.name, a.project_id, m.status, m.region, a.joined_at, m.volume_usd, m.revenue_usd, m.conversions, m.end_users, m.referred_volume_usd
    FROM affiliate_conversion_counts cc JOIN affiliates a ON a.id = cc.affiliate_id JOIN affiliate_metrics m ON m.affiliate_id = a.id`.execute(db);
  await sql`
    INSERT INTO affiliate_filter_entries (affiliate_id, kind, value, project_id, status, region, joined_at, volume_usd, revenue_usd, conversions, end_users, referred_volume_usd)
    SELECT DISTINCT ON (a.id, am.segment_id) a.id, 'audience', am.segment_id::text, a.project_id, m.status, m.region, a.joined_at,
           m.volume_usd, m.revenue_usd, m.conversions, m.end_users, m.referred_volume_usd
    FROM audience_memberships am
    JOIN affiliates a ON a.project_id = am.project_id AND a.identifier_type = am.identifier_type AND a.identifier = am.identifier
    JOIN affiliate_metrics m ON m.affiliate_id = a.id
    WHERE am.present
    ORDER BY a.id, am.segment_id`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER affiliate_filter_entries_name_added ON affiliate_conversion_counts`.execute(db);
  await sql`DROP TRIGGER affiliate_filter_entries_name_removed ON affiliate_conversion_counts`.execute(db);
  await sql`DROP TRIGGER affiliate_filter_entries_follow_metrics ON affiliate_metrics`.execute(db);
  await sql`DROP TRIGGER affiliate_filter_entries_new_affiliate ON affiliate_metrics`.execute(db);
  for (const event of ['insert', 'update', 'delete'])
    await sql`DROP TRIGGER ${sql.raw(`affiliate_filter_entries_membership_${event}`)} ON audience_memberships`.execute(db);
  await sql`
    DROP FUNCTION affiliate_filter_entries_follow_names(), affiliate_filter_entries_follow_metrics(), affiliate_filter_entries_new_affiliate(),
      affiliate_filter_entries_follow_memberships()`.execute(db);
  await sql`DROP TABLE affiliate_filter_entries`.execute(db);
  await sql`DROP FUNCTION affiliate_filter_counts_track()`.execute(db);
  await sql`DROP TABLE affiliate_filter_counts`.execute(db);
}
