import { type Kysely, sql } from 'kysely';

/**
 * Tiers: a segment with a tier_rank is a tier of its project (a higher rank is a higher tier). Ranks
 * are unique per project; the constraint, not a read before the write, decides between two
 * concurrent claims of one rank.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE segments ADD COLUMN tier_rank integer CHECK (tier_rank >= 1)`.execute(db);
  await sql`ALTER TABLE segments ADD CONSTRAINT segments_project_tier_rank_key UNIQUE (project_id, tier_rank)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE segments DROP COLUMN tier_rank`.execute(db);
}
