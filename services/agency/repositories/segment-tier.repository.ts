import { type Kysely, sql } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import type { AgencyDatabase } from '../database';
import type { TierLookup, TierView } from '../domain/audience-directory';

export interface TierChange {
  projectId: string;
  segmentId: string;
  name: string;
  /** Null: the segment is no tier (any more). */
  tierRank: number | null;
  /** When the audience service wrote the event. */
  at: Date;
}

/**
 * The agency's projection of tier segments (migration 0010), fed by the audience service's events.
 * Events may arrive late, twice or out of order: each row keeps the time of the event that set it,
 * an older event never overwrites a newer state (on equal times the later applied wins, as for
 * memberships), and a deleted segment's row stays deleted whatever arrives after.
 */
export async function applyTierChange(db: Kysely<AgencyDatabase>, change: TierChange): Promise<void> {
  await db
    .insertInto('segment_tiers')
    .values({ segment_id: change.segmentId, project_id: change.projectId, name: change.name, tier_rank: change.tierRank, changed_at: change.at })
    .onConflict((oc) =>
      oc
        .column('segment_id')
        .doUpdateSet({
          name: (eb) => eb.ref('excluded.name'),
          tier_rank: (eb) => eb.ref('excluded.tier_rank'),
          changed_at: (eb) => eb.ref('excluded.changed_at'),
        })
        .where('segment_tiers.deleted', '=', false)
        .where('segment_tiers.changed_at', '<=', (eb) => eb.ref('excluded.changed_at')),
    )
    .execute();
}

/** A segment was deleted: it is no tier from now on, and no event delivered later makes it one again. */
export async function forgetTierSegment(db: Kysely<AgencyDatabase>, projectId: string, segmentId: string, at: Date): Promise<void> {
  await db
    .insertInto('segment_tiers')
    .values({ segment_id: segmentId, project_id: projectId, name: '', tier_rank: null, deleted: true, changed_at: at })
    .onConflict((oc) =>
      oc
        .column('segment_id')
        .doUpdateSet({ tier_rank: null, deleted: true, changed_at: sql<Date>`greatest(segment_tiers.changed_at, excluded.changed_at)` }),
    )
    .execute();
}

/**
 * Tiers as the projection has them, for the affiliate bodies (attribution reads the same tables in
 * its own statement, RESOLVE_ATTRIBUTION_SQL): each user's current tier (its highest-ranked tier
 * segment among its present memberships) and the named tiers that still are tiers of the project.
 */
export class SegmentTierRepository {
  constructor(private readonly db: Kysely<AgencyDatabase>) {}

  async tiers(projectId: string, users: readonly UserIdentifier[], tierIds: readonly string[]): Promise<TierLookup> {
    const current = new Array<TierView | null>(users.length).fill(null);
    const byId = new Map<string, TierView>();
    const [found, named] = await Promise.all([
      users.length === 0
        ? { rows: [] }
        : // Raw: a multi-array unnest WITH ORDINALITY and DISTINCT ON (each user's best tier) have no builder form.
          sql<{ ord: number; segment_id: string; name: string; tier_rank: number }>`
            SELECT DISTINCT ON (u.ord) u.ord::int AS ord, st.segment_id, st.name, st.tier_rank
            FROM unnest(${users.map((user) => user.identifierType)}::text[], ${users.map((user) => user.identifier)}::text[]) WITH ORDINALITY AS u(identifier_type, identifier, ord)
            JOIN audience_memberships am ON am.project_id = ${projectId} AND am.identifier_type = u.identifier_type AND am.identifier = u.identifier AND am.present
            JOIN segment_tiers st ON st.segment_id = am.segment_id AND st.tier_rank IS NOT NULL
            ORDER BY u.ord, st.tier_rank DESC, st.segment_id`.execute(this.db),
      tierIds.length === 0
        ? []
        : this.db
            .selectFrom('segment_tiers')
            .select(['segment_id', 'name', 'tier_rank'])
            .where('project_id', '=', projectId)
            .where('segment_id', 'in', [...tierIds])
            .where('tier_rank', 'is not', null)
            .execute(),
    ]);
    for (const row of found.rows) current[row.ord - 1] = { id: row.segment_id, name: row.name, rank: row.tier_rank };
    for (const row of named) byId.set(row.segment_id, { id: row.segment_id, name: row.name, rank: row.tier_rank! });
    return { current, byId };
  }
}
