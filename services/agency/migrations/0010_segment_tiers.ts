import { type Kysely, sql } from 'kysely';

/**
 * The tier projection: the agency answers an affiliate's current tier from its own
 * tables, in the attribution statement itself, instead of asking the audience service per batch.
 *
 * - `segment_tiers`: one row per segment the audience service told about (audience.segment_tier_changed,
 *   audience.segment_deleted): its name and tier_rank (null: no tier), with the event time that set
 *   them (`changed_at`), so an older event arriving late never overwrites a newer state. A deleted
 *   segment keeps its row as a tombstone (`deleted`, rank null): no later-delivered event revives it.
 * - The index the current-tier lookup probes: a user's present memberships in its project (the
 *   primary key leads with the segment, which this lookup does not know).
 *
 * Existing tier segments reach this table through the audience migration 0008_publish_segment_tiers,
 * which writes one event per tier segment into the audience's outbox (this migration cannot read
 * the audience schema).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE segment_tiers (
      segment_id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      name text NOT NULL,
      tier_rank integer CHECK (tier_rank >= 1),
      deleted boolean NOT NULL DEFAULT false,
      changed_at timestamptz NOT NULL,
      CHECK (NOT deleted OR tier_rank IS NULL)
    )`.execute(db);
  await sql`CREATE INDEX audience_memberships_user_idx ON audience_memberships (project_id, identifier_type, identifier) INCLUDE (segment_id) WHERE present`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX audience_memberships_user_idx`.execute(db);
  await sql`DROP TABLE segment_tiers`.execute(db);
}
