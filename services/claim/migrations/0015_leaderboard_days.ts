import { type Kysely, sql } from 'kysely';

/**
 * The payouts leaderboards per UTC day (docs/claims.md#leaderboards-over-a-date-range): what each
 * user earned on each day, so a board over a date range sums at most one row per user and day instead
 * of scanning movements.
 *
 * - `leaderboard_days`: (project, currency, user type, day, user) -> total and movements counted, kept in
 *   the transaction that keeps `leaderboard_totals` (a movement counts once available; a reversal takes
 *   back from the day the movement counts on). A movement's day is the UTC day it was written
 *   (`movements.created_at`: when its conversion was paid), whenever it became available.
 * - Filled here from the ledger as it stands: each available counted movement net of every reversal of
 *   it (a reversal while pending was taken off before it counted, one after it shrank the totals).
 *
 * Numbered 0015 on the leaderboards branch (other branches of issue 25 take other numbers).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE leaderboard_days (
      project_id uuid NOT NULL,
      currency_id uuid NOT NULL,
      user_type text NOT NULL CHECK (user_type IN ('affiliate', 'end_user')),
      day date NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      total_amount numeric NOT NULL CHECK (total_amount >= 0),
      total_attributions bigint NOT NULL CHECK (total_attributions >= 0),
      PRIMARY KEY (project_id, currency_id, user_type, day, identifier_type, identifier)
    )`.execute(db);
  await sql`
    INSERT INTO leaderboard_days (project_id, currency_id, user_type, day, identifier_type, identifier, total_amount, total_attributions)
    SELECT m.project_id, m.currency_id, CASE m.kind WHEN 'affiliate_payout' THEN 'affiliate' ELSE 'end_user' END,
           (m.created_at AT TIME ZONE 'UTC')::date, m.identifier_type, m.identifier,
           sum(m.amount - coalesce(r.amount, 0)), count(*)
    FROM movements m
    LEFT JOIN (SELECT movement_id, sum(amount) AS amount FROM movement_reversals GROUP BY movement_id) r ON r.movement_id = m.id
    WHERE m.status = 'available' AND m.kind IN ('affiliate_payout', 'end_user_payout')
    GROUP BY 1, 2, 3, 4, 5, 6`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE leaderboard_days`.execute(db);
}
