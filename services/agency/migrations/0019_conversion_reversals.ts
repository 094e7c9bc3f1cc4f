import { type Kysely, sql } from 'kysely';

/**
 * Reversals of paid conversions in the affiliate metrics (claim.conversion.reversed, docs/affiliates.md#reversals):
 *
 * - `conversion_fact_reversals`: one row per reversal the projection applied, with what it took back
 *   (the reversed share of the volume and revenue, of the affiliate's and the master's payouts). Its
 *   primary key makes a reversal count once, whether its event or a rebuild brought it first.
 * - `conversion_facts.reversed_bps`: how much of the conversion its reversals took back. A fact's
 *   figures are net of them (every reader of the facts sums net figures); a fully reversed one
 *   (10000) no longer counts as a conversion. The facts' existing checks (>= 0) refuse any reversal
 *   that would take back more than the conversion brought.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE conversion_facts ADD COLUMN reversed_bps integer NOT NULL DEFAULT 0 CHECK (reversed_bps BETWEEN 0 AND 10000)`.execute(db);
  await sql`
    CREATE TABLE conversion_fact_reversals (
      project_id uuid NOT NULL,
      reversal_id text NOT NULL,
      conversion_id text NOT NULL,
      share_bps integer NOT NULL CHECK (share_bps BETWEEN 1 AND 10000),
      volume_usd numeric CHECK (volume_usd >= 0),
      revenue_usd numeric CHECK (revenue_usd >= 0),
      affiliate_payout numeric(78,0) NOT NULL CHECK (affiliate_payout >= 0),
      agency_payout numeric(78,0) NOT NULL CHECK (agency_payout >= 0),
      recorded_at timestamptz NOT NULL,
      PRIMARY KEY (project_id, reversal_id),
      FOREIGN KEY (project_id, conversion_id) REFERENCES conversion_facts (project_id, conversion_id)
    )`.execute(db);
  await sql`CREATE INDEX conversion_fact_reversals_conversion_idx ON conversion_fact_reversals (project_id, conversion_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE conversion_fact_reversals`.execute(db);
  await sql`ALTER TABLE conversion_facts DROP COLUMN reversed_bps`.execute(db);
}
