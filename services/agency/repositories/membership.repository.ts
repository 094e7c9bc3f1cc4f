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
 * The agency's projection of audience memberships (what the affiliate list's audience filters, the
 * tiers and attribution read), of the project's affiliates only: those readers join it on an
 * affiliate, and an ingest's entry events name mostly users that are none (projecting them all
 * doubled an ingest's cost, issue 27 §3). A user's entries from before it became an affiliate come
 * back in audience.memberships.published, the audience service's answer to agency.affiliate.created;
 * an entry event that finds the affiliate not yet committed is covered by it, because the audience
 * service reads the entries after that commit. Events may arrive late or out of order (retries,
 * parallel workers): each row keeps the time of the event that last set it, and an older event never
 * overwrites a newer state; a deleted segment's rows go, and its older events are ignored.
 */
export async function applyMembershipChange(db: Kysely<AgencyDatabase>, change: MembershipChange): Promise<void> {
  // One row per user: ON CONFLICT may not touch a row twice in one statement.
  const users = [...new Map(change.users.map((user) => [`${user.identifier_type}:${user.identifier}`, user])).values()];
  await sql`
    INSERT INTO audience_memberships (project_id, segment_id, identifier_type, identifier, kind, present, changed_at)
    SELECT ${change.projectId}, ${change.segmentId}, u.identifier_type, u.identifier, ${change.kind}, ${change.present}, ${change.at}
    FROM unnest(${users.map((user) => user.identifier_type)}::text[], ${users.map((user) => user.identifier)}::text[]) AS u(identifier_type, identifier)
    WHERE EXISTS (SELECT 1 FROM affiliates a WHERE a.project_id = ${change.projectId} AND a.identifier_type = u.identifier_type AND a.identifier = u.identifier)
      AND NOT EXISTS (SELECT 1 FROM deleted_segments d WHERE d.segment_id = ${change.segmentId} AND d.deleted_at >= ${change.at})
    ON CONFLICT (segment_id, identifier_type, identifier, kind) DO UPDATE
      SET present = EXCLUDED.present, changed_at = EXCLUDED.changed_at
      WHERE audience_memberships.changed_at <= EXCLUDED.changed_at`.execute(db);
}

/**
 * A new affiliate's segments as the audience service published them: each an entry at the time of
 * publication. Never an absence: an entry missing from it may have been added concurrently, and
 * its own event (kept now) tells; a removal tells by its own event too.
 */
export async function applyPublishedMemberships(
  db: Kysely<AgencyDatabase>,
  projectId: string,
  user: { identifier: string; identifier_type: string },
  memberships: ReadonlyArray<{ segment_id: string; kind: 'static' | 'dynamic' }>,
  at: Date,
): Promise<void> {
  for (const membership of memberships) {
    await applyMembershipChange(db, { projectId, segmentId: membership.segment_id, kind: membership.kind, users: [user], present: true, at });
  }
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
