import { type Kysely, sql } from 'kysely';

/**
 * The backfill of the agency's tier projection (agency migration 0010_segment_tiers): tier
 * segments made before audience.segment_tier_changed existed have no event, and the agency cannot
 * read this schema. So this migration writes, into this service's own outbox, one such event per
 * tier segment (its state now); the relay delivers them like any other, and the agency applies each
 * once. A later write of a tier carries a later time and wins over these. Runs once, as every
 * migration does; a new deployment has no segments yet and writes nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    INSERT INTO outbox (id, type, project_id, payload, created_at)
    SELECT gen_random_uuid(), 'audience.segment_tier_changed', s.project_id,
           jsonb_build_object('segment_id', s.id, 'name', s.name, 'tier_rank', s.tier_rank), now()
    FROM segments s
    WHERE s.tier_rank IS NOT NULL
    ORDER BY s.created_at, s.id`.execute(db);
}

/** The events may have left already: nothing to take back. */
export async function down(): Promise<void> {}
