import { type Kysely, sql } from 'kysely';

/**
 * Referral levels in the affiliate metrics projection (docs/claims.md#referral-levels).
 *
 * `conversion_fact_levels`: one row per fact and upper level (2..4) of the upline the claim service froze
 * with the conversion (claim.conversion.processed's `upline`), with what that level was paid (its
 * affiliate_payout of `payouts[].level`, in the fact's currency, net of reversals as the fact's own
 * figures are). Level 1 stays the fact's own `affiliate_id` and `affiliate_payout`. Written in the
 * transaction that inserts the fact, only when the fact is new, so a replay adds nothing; a level's
 * volume, revenue, conversions and users are its fact's (net of reversals), read through the join, so
 * a reversal changes only the payouts here. `occurred_at` is the fact's, copied so that an affiliate's
 * figures of a level over a range are one range of the (affiliate_id, level, occurred_at) index.
 *
 * Facts recorded before this migration have no rows: they count as level 1, as their events said.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE conversion_fact_levels (
      project_id uuid NOT NULL,
      conversion_id text NOT NULL,
      level smallint NOT NULL CHECK (level BETWEEN 2 AND 4),
      affiliate_id uuid NOT NULL,
      occurred_at timestamptz NOT NULL,
      payout numeric(78,0) NOT NULL DEFAULT 0 CHECK (payout >= 0),
      PRIMARY KEY (project_id, conversion_id, level),
      FOREIGN KEY (project_id, conversion_id) REFERENCES conversion_facts (project_id, conversion_id)
    )`.execute(db);
  await sql`CREATE INDEX conversion_fact_levels_affiliate_idx ON conversion_fact_levels (affiliate_id, level, occurred_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE conversion_fact_levels`.execute(db);
}
