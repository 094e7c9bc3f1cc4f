import { type Kysely, sql } from 'kysely';

const NON_NEGATIVE = {
  user_metrics: ['volume_usd', 'revenue_usd', 'conversions', 'referred_volume_usd'],
  user_conversion_days: ['volume_usd', 'revenue_usd', 'conversions'],
  user_referral_days: ['referred_volume_usd'],
} as const;

/**
 * Reversals of paid conversions in the condition inputs (claim.conversion.reversed): each takes its
 * share of the conversion's volume, revenue and payouts back out of the sums the conversion was added to.
 *
 * - `reversed_conversions`: how much of each conversion its reversals took back, so the one that
 *   completes it (10000 bps) takes the conversion out of the counts too.
 * - The sums a reversal subtracts from refuse to go below zero (user_earning_days' amount already
 *   does): a reversal that would is an error, retried, never a silent negative figure. NOT VALID:
 *   every row so far only ever grew from zero.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE reversed_conversions (
      project_id uuid NOT NULL,
      conversion_id text NOT NULL,
      reversed_bps integer NOT NULL CHECK (reversed_bps BETWEEN 1 AND 10000),
      PRIMARY KEY (project_id, conversion_id)
    )`.execute(db);
  for (const [table, columns] of Object.entries(NON_NEGATIVE)) {
    for (const column of columns) {
      await sql`ALTER TABLE ${sql.table(table)} ADD CONSTRAINT ${sql.raw(`${table}_${column}_non_negative`)} CHECK (${sql.ref(column)} >= 0) NOT VALID`.execute(
        db,
      );
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [table, columns] of Object.entries(NON_NEGATIVE)) {
    for (const column of columns)
      await sql`ALTER TABLE ${sql.table(table)} DROP CONSTRAINT ${sql.raw(`${table}_${column}_non_negative`)}`.execute(db);
  }
  await sql`DROP TABLE reversed_conversions`.execute(db);
}
