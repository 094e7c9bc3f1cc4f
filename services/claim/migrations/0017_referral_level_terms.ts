import { type Kysely, sql } from 'kysely';

/**
 * Referral levels, the terms and the frozen chain (docs/claims.md#referral-levels):
 *
 * - `payout_terms.affiliate{2,3,4}_{fixed,bps}` and the same on `payout_term_tiers`: the reward of each level
 *   of the referring affiliate's upline, fixed base units or basis points of reward_base (never both; both
 *   null: that level is not paid). Nullable without a default: no table is rewritten.
 * - `conversion_upline`: the upline the agency answered when the conversion was paid (levels 2..4, levels
 *   may skip), frozen like the rest of its attribution, one row per level. A child table rather than nine
 *   columns on `conversions`: most conversions have no upline and cost the payment's statement nothing.
 *
 * Numbered 0017 on the levels-claim branch (other branches of issue 25 take other numbers).
 */
const LEVELS = [2, 3, 4] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['payout_terms', 'payout_term_tiers']) {
    for (const level of LEVELS) {
      await sql`
        ALTER TABLE ${sql.table(table)}
          ADD COLUMN ${sql.ref(`affiliate${level}_fixed`)} numeric(78,0) CHECK (${sql.ref(`affiliate${level}_fixed`)} >= 0),
          ADD COLUMN ${sql.ref(`affiliate${level}_bps`)} integer CHECK (${sql.ref(`affiliate${level}_bps`)} BETWEEN 0 AND 10000),
          ADD CHECK (${sql.ref(`affiliate${level}_fixed`)} IS NULL OR ${sql.ref(`affiliate${level}_bps`)} IS NULL)`.execute(db);
    }
  }
  await sql`
    CREATE TABLE conversion_upline (
      project_id uuid NOT NULL,
      conversion_id text NOT NULL,
      level smallint NOT NULL CHECK (level BETWEEN 2 AND 4),
      affiliate_id text NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      PRIMARY KEY (project_id, conversion_id, level),
      FOREIGN KEY (project_id, conversion_id) REFERENCES conversions (project_id, id)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE conversion_upline`.execute(db);
  for (const table of ['payout_terms', 'payout_term_tiers']) {
    for (const level of LEVELS) {
      await sql`ALTER TABLE ${sql.table(table)} DROP COLUMN ${sql.ref(`affiliate${level}_fixed`)}, DROP COLUMN ${sql.ref(`affiliate${level}_bps`)}`.execute(
        db,
      );
    }
  }
}
