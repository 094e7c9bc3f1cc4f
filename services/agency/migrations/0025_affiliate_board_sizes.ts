import { type Kysely, sql } from 'kysely';

/**
 * The affiliates' boards' sizes, kept (docs/affiliates.md#leaderboards): `affiliate_board_sizes`, per project
 * and board (volume, revenue, referred_users), the affiliates whose figure is above zero, so a page reads its
 * board's size as one row instead of counting the board's index range per request (27,600 entries at 50,000
 * affiliates: most of the page's time), as claim's leaderboard_sizes does for the payouts board.
 *
 * Kept by a trigger on affiliate_metrics, whichever path writes it (a conversion batch, a referral, a
 * reversal, a rebuild's recomputation): each row that crosses zero on a board's column adds or takes one.
 * It follows the row, so it is as idempotent as the projection (a replayed event that changes no figure
 * crosses nothing) and exact by construction. The trigger is DEFERRED to commit: a board's size row is hot
 * (every affiliate's first conversion moves it); taken when the crossing happens, a batch holding it would
 * then lock more metrics rows that a concurrent batch holds while waiting for it (a deadlock). At commit a
 * transaction's metrics rows are all locked already, and each firing upserts the project's three sizes in
 * the same order, so size rows are always taken in one order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE affiliate_board_sizes (
      project_id uuid NOT NULL,
      metric text NOT NULL CHECK (metric IN ('referred_users', 'revenue', 'volume')),
      -- No CHECK (entries >= 0): the trigger's upsert proposes a row of the delta (-1 when an affiliate leaves a board),
      -- and PostgreSQL checks a proposed row before it finds the conflict that turns it into an update.
      entries bigint NOT NULL,
      PRIMARY KEY (project_id, metric)
    )`.execute(db);
  await sql`
    CREATE FUNCTION affiliate_board_sizes_track() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    DECLARE
      project uuid := CASE WHEN TG_OP = 'DELETE' THEN OLD.project_id ELSE NEW.project_id END;
      was_on boolean[] := CASE WHEN TG_OP = 'INSERT' THEN ARRAY[false, false, false]
                               ELSE ARRAY[OLD.end_users > 0, OLD.revenue_usd > 0, OLD.volume_usd > 0] END;
      is_on boolean[] := CASE WHEN TG_OP = 'DELETE' THEN ARRAY[false, false, false]
                              ELSE ARRAY[NEW.end_users > 0, NEW.revenue_usd > 0, NEW.volume_usd > 0] END;
    BEGIN
      -- All three, in the primary key's order, even when one moves: see the migration's note on lock order.
      INSERT INTO affiliate_board_sizes AS s (project_id, metric, entries)
      VALUES (project, 'referred_users', is_on[1]::int - was_on[1]::int),
             (project, 'revenue', is_on[2]::int - was_on[2]::int),
             (project, 'volume', is_on[3]::int - was_on[3]::int)
      ON CONFLICT (project_id, metric) DO UPDATE SET entries = s.entries + excluded.entries;
      RETURN NULL;
    END
    $$`.execute(db);
  // WHEN filters at the write (no function call for the many updates that cross nothing); fired at commit.
  await sql`
    CREATE CONSTRAINT TRIGGER affiliate_board_sizes_insert AFTER INSERT ON affiliate_metrics DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.end_users > 0 OR NEW.revenue_usd > 0 OR NEW.volume_usd > 0)
    EXECUTE FUNCTION affiliate_board_sizes_track()`.execute(db);
  await sql`
    CREATE CONSTRAINT TRIGGER affiliate_board_sizes_update AFTER UPDATE ON affiliate_metrics DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN ((OLD.end_users > 0) <> (NEW.end_users > 0) OR (OLD.revenue_usd > 0) <> (NEW.revenue_usd > 0) OR (OLD.volume_usd > 0) <> (NEW.volume_usd > 0))
    EXECUTE FUNCTION affiliate_board_sizes_track()`.execute(db);
  await sql`
    CREATE CONSTRAINT TRIGGER affiliate_board_sizes_delete AFTER DELETE ON affiliate_metrics DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (OLD.end_users > 0 OR OLD.revenue_usd > 0 OR OLD.volume_usd > 0)
    EXECUTE FUNCTION affiliate_board_sizes_track()`.execute(db);
  await sql`
    INSERT INTO affiliate_board_sizes (project_id, metric, entries)
    SELECT p.project_id, b.metric, p.entries[b.n]
    FROM (SELECT project_id, ARRAY[count(*) FILTER (WHERE end_users > 0), count(*) FILTER (WHERE revenue_usd > 0), count(*) FILTER (WHERE volume_usd > 0)] AS entries
          FROM affiliate_metrics GROUP BY project_id) p
    CROSS JOIN (VALUES (1, 'referred_users'), (2, 'revenue'), (3, 'volume')) AS b (n, metric)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const operation of ['insert', 'update', 'delete']) {
    await sql`DROP TRIGGER ${sql.raw(`affiliate_board_sizes_${operation}`)} ON affiliate_metrics`.execute(db);
  }
  await sql`DROP FUNCTION affiliate_board_sizes_track()`.execute(db);
  await sql`DROP TABLE affiliate_board_sizes`.execute(db);
}
