import { type Kysely, sql } from 'kysely';
import type { AgencyDatabase } from '../database';

export interface MembershipChange {
  projectId: string;
  segmentId: string;
  kind: 'static' | 'dynamic';
  users: ReadonlyArray<{ identifier: string; identifier_type: string }>;
  /** Added (true) or removed (false). */
  present: boolean;
  /** When the audience service wrote the event. */
  at: Date;
}

/**
 * The agency's projection of audience memberships (what the affiliate list's audience filters join).
 * Events may arrive late or out of order (retries, parallel workers): each row keeps the time of
 * the event that last set it, and an older event never overwrites a newer state; a deleted
 * segment's rows go, and its older events are ignored.
 */
export async function applyMembershipChange(db: Kysely<AgencyDatabase>, change: MembershipChange): Promise<void> {
  // One row per user: ON CONFLICT may not touch a row twice in one statement.
  const users = [...new Map(change.users.map((user) => [`${user.identifier_type}:${user.identifier}`, user])).values()];
  await sql`
    INSERT INTO audience_memberships (project_id, segment_id, identifier_type, identifier, kind, present, changed_at)
    SELECT ${change.projectId}, ${change.segmentId}, u.identifier_type, u.identifier, ${change.kind}, ${change.present}, ${change.at}
    FROM unnest(${users.map((user) => user.identifier_type)}::text[], ${users.map((user) => user.identifier)}::text[]) AS u(identifier_type, identifier)
    WHERE NOT EXISTS (SELECT 1 FROM deleted_segments d WHERE d.segment_id = ${change.segmentId} AND d.deleted_at >= ${change.at})
    ON CONFLICT (segment_id, identifier_type, identifier, kind) DO UPDATE
      SET present = EXCLUDED.present, changed_at = EXCLUDED.changed_at
      WHERE audience_memberships.changed_at <= EXCLUDED.changed_at`.execute(db);
}

/** A segment was deleted with all its entries. */
export async function forgetSegment(db: Kysely<AgencyDatabase>, projectId: string, segmentId: string, at: Date): Promise<void> {
  await db
    .insertInto('deleted_segments')
    .values({ segment_id: segmentId, project_id: projectId, deleted_at: at })
    .onConflict((oc) => oc.column('segment_id').doUpdateSet({ deleted_at: sql<Date>`greatest(deleted_segments.deleted_at, excluded.deleted_at)` }))
    .execute();
  await db.deleteFrom('audience_memberships').where('segment_id', '=', segmentId).where('changed_at', '<=', at).execute();
}
