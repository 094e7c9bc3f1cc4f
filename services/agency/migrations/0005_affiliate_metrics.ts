import { type Kysely, sql } from 'kysely';

/**
 * The affiliate metrics projection, fed by the claim service's
 * `claim.conversion.processed` events (jobs/affiliate-metrics.consumer.ts) and rebuilt from it on
 * demand. `conversion_facts` holds one row per conversion as it was paid (attribution frozen); every
 * other table is an aggregate of those facts, changed only in the transaction that inserted the fact,
 * so a replayed event changes nothing and a rebuild can recompute them all from the facts.
 * USD figures are NUMERIC, money NUMERIC(78,0) base units.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // The currencies the claim service named in its events (they never change there).
  await sql`
    CREATE TABLE metric_currencies (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      chain_id bigint NOT NULL,
      address text NOT NULL,
      name text NOT NULL,
      decimals smallint NOT NULL
    )`.execute(db);

  // One row per paid (or no_terms) conversion. affiliate_id NULL: attributed to nobody (kept, it changes no affiliate's figures).
  await sql`
    CREATE TABLE conversion_facts (
      project_id uuid NOT NULL,
      conversion_id text NOT NULL,
      name text NOT NULL,
      status text NOT NULL CHECK (status IN ('processed', 'no_terms')),
      occurred_at timestamptz NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      affiliate_id uuid,
      master_id uuid,
      spread_bps integer,
      tier_id uuid,
      volume_usd numeric CHECK (volume_usd >= 0),
      revenue_usd numeric CHECK (revenue_usd >= 0),
      currency_id uuid,
      affiliate_payout numeric(78,0) NOT NULL DEFAULT 0 CHECK (affiliate_payout >= 0),
      agency_payout numeric(78,0) NOT NULL DEFAULT 0 CHECK (agency_payout >= 0),
      recorded_at timestamptz NOT NULL,
      PRIMARY KEY (project_id, conversion_id),
      CHECK (master_id IS NULL OR affiliate_id IS NOT NULL)
    )`.execute(db);
  // An affiliate's conversions over time (history by day), a master's through its sub-affiliates.
  await sql`CREATE INDEX conversion_facts_affiliate_idx ON conversion_facts (affiliate_id, occurred_at) WHERE affiliate_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX conversion_facts_master_idx ON conversion_facts (master_id, occurred_at) WHERE master_id IS NOT NULL`.execute(db);

  // One row per affiliate, created with it (and below for those that exist): the list sorts by any of these.
  await sql`
    CREATE TABLE affiliate_metrics (
      affiliate_id uuid PRIMARY KEY REFERENCES affiliates (id),
      project_id uuid NOT NULL,
      volume_usd numeric NOT NULL DEFAULT 0,
      revenue_usd numeric NOT NULL DEFAULT 0,
      conversions bigint NOT NULL DEFAULT 0,
      end_users bigint NOT NULL DEFAULT 0,
      referred_volume_usd numeric NOT NULL DEFAULT 0,
      updated_at timestamptz NOT NULL
    )`.execute(db);
  // The list's sorts: one index per metric, ties broken by id (a backward scan serves the other order).
  for (const metric of ['volume_usd', 'revenue_usd', 'conversions', 'end_users', 'referred_volume_usd']) {
    await sql`CREATE INDEX ${sql.raw(`affiliate_metrics_${metric}_idx`)} ON affiliate_metrics (project_id, ${sql.ref(metric)}, affiliate_id)`.execute(
      db,
    );
  }
  await sql`
    INSERT INTO affiliate_metrics (affiliate_id, project_id, updated_at)
    SELECT id, project_id, now() FROM affiliates`.execute(db);

  // Affiliates per project and status, kept by a trigger on every path that creates an affiliate or
  // changes its status: the list's total_results without counting 100,000 rows per page when the only
  // filter is the status (the common case; other filters count their matches).
  await sql`
    CREATE TABLE affiliate_counts (
      project_id uuid NOT NULL,
      status text NOT NULL,
      affiliates bigint NOT NULL CHECK (affiliates >= 0),
      PRIMARY KEY (project_id, status)
    )`.execute(db);
  await sql`
    CREATE FUNCTION affiliate_counts_track() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      IF TG_OP = 'UPDATE' THEN
        IF NEW.status = OLD.status THEN RETURN NULL; END IF;
        UPDATE affiliate_counts SET affiliates = affiliates - 1 WHERE project_id = OLD.project_id AND status = OLD.status;
      END IF;
      INSERT INTO affiliate_counts AS c (project_id, status, affiliates) VALUES (NEW.project_id, NEW.status, 1)
      ON CONFLICT (project_id, status) DO UPDATE SET affiliates = c.affiliates + 1;
      RETURN NULL;
    END
    $$`.execute(db);
  await sql`
    CREATE TRIGGER affiliate_counts_track AFTER INSERT OR UPDATE OF status ON affiliates
    FOR EACH ROW EXECUTE FUNCTION affiliate_counts_track()`.execute(db);
  await sql`INSERT INTO affiliate_counts (project_id, status, affiliates) SELECT project_id, status, count(*) FROM affiliates GROUP BY project_id, status`.execute(
    db,
  );

  // Conversions per name: the list's `conversions` filter (affiliates with at least one of these names).
  await sql`
    CREATE TABLE affiliate_conversion_counts (
      affiliate_id uuid NOT NULL REFERENCES affiliates (id),
      name text NOT NULL,
      project_id uuid NOT NULL,
      conversions bigint NOT NULL,
      PRIMARY KEY (affiliate_id, name)
    )`.execute(db);
  await sql`CREATE INDEX affiliate_conversion_counts_name_idx ON affiliate_conversion_counts (project_id, name, affiliate_id)`.execute(db);

  // Earnings per currency: kind affiliate (its affiliate_payout movements), agency (a master's agency_payout).
  await sql`
    CREATE TABLE affiliate_earnings (
      affiliate_id uuid NOT NULL REFERENCES affiliates (id),
      kind text NOT NULL CHECK (kind IN ('affiliate', 'agency')),
      currency_id uuid NOT NULL,
      project_id uuid NOT NULL,
      amount numeric(78,0) NOT NULL CHECK (amount >= 0),
      PRIMARY KEY (affiliate_id, kind, currency_id)
    )`.execute(db);
  await sql`CREATE INDEX affiliate_earnings_project_idx ON affiliate_earnings (project_id)`.execute(db);

  // The referral tree's per-user figures: each referred user with at least one conversion.
  await sql`
    CREATE TABLE referred_user_metrics (
      affiliate_id uuid NOT NULL REFERENCES affiliates (id),
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      project_id uuid NOT NULL,
      volume_usd numeric NOT NULL,
      revenue_usd numeric NOT NULL,
      conversions bigint NOT NULL,
      first_conversion_at timestamptz NOT NULL,
      last_conversion_at timestamptz NOT NULL,
      PRIMARY KEY (affiliate_id, identifier_type, identifier)
    )`.execute(db);
  await sql`CREATE INDEX referred_user_metrics_project_idx ON referred_user_metrics (project_id)`.execute(db);

  // What a sub-affiliate brought a master while bound to it (the conversions' frozen master_id).
  await sql`
    CREATE TABLE sub_affiliate_metrics (
      master_id uuid NOT NULL REFERENCES affiliates (id),
      affiliate_id uuid NOT NULL REFERENCES affiliates (id),
      project_id uuid NOT NULL,
      volume_usd numeric NOT NULL,
      revenue_usd numeric NOT NULL,
      conversions bigint NOT NULL,
      PRIMARY KEY (master_id, affiliate_id)
    )`.execute(db);
  await sql`CREATE INDEX sub_affiliate_metrics_project_idx ON sub_affiliate_metrics (project_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TABLE sub_affiliate_metrics, referred_user_metrics, affiliate_earnings, affiliate_conversion_counts, affiliate_metrics,
      conversion_facts, metric_currencies`.execute(db);
  await sql`DROP TRIGGER affiliate_counts_track ON affiliates`.execute(db);
  await sql`DROP FUNCTION affiliate_counts_track()`.execute(db);
  await sql`DROP TABLE affiliate_counts`.execute(db);
}
