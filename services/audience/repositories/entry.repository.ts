import { type Kysely, type RawBuilder, type Selectable, sql, type Transaction } from 'kysely';
import { isForeignKeyViolation } from '../../platform/db/errors';
import type { IdentifierType, UserIdentifier } from '../../rules/identifiers';
import { appendOutboxEvents } from '../../platform/outbox/append';
import type { AudienceDatabase, BadgeTable, EntryTable, SegmentTable } from '../database';
import type { EntryKind, EntrySource } from '../domain/vocabulary';
import { entriesEvent } from './entry-events';

export interface EntryRecord {
  identifier: string;
  identifierType: IdentifierType;
  kind: EntryKind;
  source: EntrySource;
  addedAt: Date;
}

/** Position of an entry in "newest first" order; the keyset behind entry cursors. */
export interface EntryKey {
  addedAt: Date;
  identifierType: string;
  identifier: string;
}

const ENTRY_COLUMNS = ['identifier', 'identifier_type', 'kind', 'source', 'added_at'] as const;

export interface UserAudienceRecord {
  id: string;
  name: string;
  badgeName: string | null;
  badgeDescription: string | null;
  badgeImage: string | null;
}

/** One membership question: is this user in this segment? */
export interface MembershipQuery {
  segmentId: string;
  user: UserIdentifier;
}

/** The answers: one per query, in order; and the segments asked about that the project does not have. */
export interface MembershipAnswers {
  members: boolean[];
  missingSegmentIds: string[];
}

/** A tier segment, as a user's current tier. */
export interface UserTierRecord {
  segmentId: string;
  name: string;
  tierRank: number;
}

/** An (I)LIKE pattern matching what starts with `prefix`, its own % and _ taken literally. */
function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export type EntryWindow = { limit: number; offset: number } | { limit: number; after: EntryKey };

export class EntryRepository {
  constructor(private readonly db: Kysely<AudienceDatabase>) {}

  /**
   * Adds one user unless already present, counts it and tells other services, in one transaction.
   * Returns 'exists' when the user was there already (also under a concurrent identical add,
   * where the primary key lets exactly one insert win) and 'no_segment' when the segment is gone.
   */
  async insertOne(
    segment: { id: string; projectId: string },
    user: UserIdentifier,
    source: EntrySource,
    now: Date,
  ): Promise<EntryRecord | 'exists' | 'no_segment'> {
    try {
      return await this.db.transaction().execute((trx) => addEntry(trx, segment, user, source, now));
    } catch (error) {
      if (isForeignKeyViolation(error)) return 'no_segment';
      throw error;
    }
  }

  async list(segmentId: string, window: EntryWindow, identifierPrefix?: string): Promise<EntryRecord[]> {
    let query = this.db.selectFrom('entries').select(ENTRY_COLUMNS).where('segment_id', '=', segmentId);
    if (identifierPrefix) query = query.where('identifier', 'ilike', likePrefix(identifierPrefix));
    if ('after' in window) {
      const { addedAt, identifierType, identifier } = window.after;
      // Raw: the builder types a row comparison only against a list or a subquery, not "(a, b, c) < (x, y, z)".
      query = query.where(
        sql<boolean>`(added_at, identifier_type, identifier) < (${addedAt}::timestamptz, ${identifierType}::text, ${identifier}::text)`,
      );
    }
    const rows = await query
      .orderBy('added_at', 'desc')
      .orderBy('identifier_type', 'desc')
      .orderBy('identifier', 'desc')
      .limit(window.limit)
      .offset('offset' in window ? window.offset : 0)
      .execute();
    return rows.map(toRecord);
  }

  /** How many of the segment's identifiers start with the prefix (in any letter case). */
  async countWithPrefix(segmentId: string, identifierPrefix: string): Promise<number> {
    const row = await this.db
      .selectFrom('entries')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('segment_id', '=', segmentId)
      .where('identifier', 'ilike', likePrefix(identifierPrefix))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /** Removes the user (any of the given forms), keeps the segment's count right and tells other services. */
  async deleteUser(segment: { id: string; projectId: string }, forms: UserIdentifier[], now: Date): Promise<number> {
    if (forms.length === 0) return 0;
    return this.db.transaction().execute(async (trx) => {
      const deleted = await trx
        .deleteFrom('entries')
        .where('segment_id', '=', segment.id)
        .where((eb) => eb.or(forms.map((form) => eb.and([eb('identifier_type', '=', form.identifierType), eb('identifier', '=', form.identifier)]))))
        .returning(['identifier', 'identifier_type', 'kind'])
        .execute();
      if (deleted.length > 0) {
        await trx
          .updateTable('segments')
          .set((eb) => ({ entries_count: eb('entries_count', '-', BigInt(deleted.length)) }))
          .where('id', '=', segment.id)
          .execute();
        const at = { project_id: segment.projectId, segment_id: segment.id };
        const events = (['static', 'dynamic'] as const).flatMap((kind) => {
          const users = deleted.filter((row) => row.kind === kind);
          return users.length > 0 ? [entriesEvent('audience.entry_removed', at, kind, users)] : [];
        });
        await appendOutboxEvents(trx, now, events);
      }
      return deleted.length;
    });
  }

  /**
   * Every segment of each user (each in its own project), with badges, for many users in one
   * statement: the hot read path. Concurrent lookups arrive here together, so planning and the
   * round trip are paid once per batch instead of once per user. Returns one list per lookup, in order.
   */
  async findUserAudiences(lookups: Array<{ projectId: string; user: UserIdentifier }>): Promise<UserAudienceRecord[][]> {
    const found: UserAudienceRecord[][] = lookups.map(() => []);
    if (lookups.length === 0) return found;
    // Raw: the builder cannot say a multi-array unnest WITH ORDINALITY (lookupEntries), which keeps each answer tied to its lookup.
    const { rows } = await sql<UserAudienceRow>`
      SELECT l.ord::int AS ord, s.id, s.name,
             b.name AS badge_name, b.description AS badge_description, b.image_url AS badge_image
      FROM ${lookupEntries(lookups)}
      JOIN segments s ON s.id = e.segment_id
      LEFT JOIN badges b ON b.segment_id = s.id
      ORDER BY l.ord, s.created_at, s.id`.execute(this.db);
    for (const row of rows) {
      found[row.ord - 1]!.push({
        id: row.id,
        name: row.name,
        badgeName: row.badge_name,
        badgeDescription: row.badge_description,
        badgeImage: row.badge_image,
      });
    }
    return found;
  }
  /**
   * Each user's highest-ranked tier segment in its project, or undefined, for many users in one
   * statement (the lookup index, then the tier segments among the user's, best first). Returns one
   * answer per lookup, in order.
   */
  async findUserTiers(lookups: Array<{ projectId: string; user: UserIdentifier }>): Promise<Array<UserTierRecord | undefined>> {
    const found: Array<UserTierRecord | undefined> = lookups.map(() => undefined);
    if (lookups.length === 0) return found;
    // Raw: as findUserAudiences (a multi-array unnest WITH ORDINALITY), plus DISTINCT ON to keep each user's best tier.
    const { rows } = await sql<UserTierRow>`
      SELECT DISTINCT ON (l.ord) l.ord::int AS ord, s.id AS segment_id, s.name, s.tier_rank
      FROM ${lookupEntries(lookups)}
      JOIN segments s ON s.id = e.segment_id AND s.tier_rank IS NOT NULL
      ORDER BY l.ord, s.tier_rank DESC`.execute(this.db);
    for (const row of rows) found[row.ord - 1] = { segmentId: row.segment_id, name: row.name, tierRank: row.tier_rank };
    return found;
  }

  /**
   * Whether each user is in each segment (an entry of either kind), for many (segment, user) pairs
   * of one project in one statement: each pair is a primary-key probe of entries, and the segments
   * asked about that the project does not have come back beside (no segment: no members).
   */
  async findMemberships(projectId: string, queries: readonly MembershipQuery[]): Promise<MembershipAnswers> {
    const members = queries.map(() => false);
    if (queries.length === 0) return { members, missingSegmentIds: [] };
    // Raw: a multi-array unnest WITH ORDINALITY (each answer tied to its query), and the missing segments in the same statement.
    const { rows } = await sql<{ ord: number | null; missing: string | null }>`
      SELECT q.ord::int AS ord, NULL::uuid AS missing
      FROM unnest(${queries.map((q) => q.segmentId)}::uuid[],
                  ${queries.map((q) => q.user.identifierType)}::text[],
                  ${queries.map((q) => q.user.identifier)}::text[])
             WITH ORDINALITY AS q (segment_id, identifier_type, identifier, ord)
      JOIN entries e
        ON e.segment_id = q.segment_id AND e.identifier_type = q.identifier_type AND e.identifier = q.identifier
       AND e.project_id = ${projectId}
      UNION ALL
      SELECT NULL, asked.id
      FROM (SELECT DISTINCT unnest(${queries.map((q) => q.segmentId)}::uuid[]) AS id) asked
      WHERE NOT EXISTS (SELECT 1 FROM segments s WHERE s.id = asked.id AND s.project_id = ${projectId})`.execute(this.db);
    const missingSegmentIds: string[] = [];
    for (const row of rows) {
      if (row.ord !== null) members[row.ord - 1] = true;
      else if (row.missing !== null) missingSegmentIds.push(row.missing);
    }
    return { members, missingSegmentIds: missingSegmentIds.sort() };
  }
}

/**
 * Adds one static user to a segment, inside the caller's transaction: the entry, the segment's
 * count and the audience.entry_added event, or nothing when the user is there already ('exists').
 * The segment must exist in the project (a vanished one fails the insert's foreign key).
 */
export async function addEntry(
  trx: Transaction<AudienceDatabase>,
  segment: { id: string; projectId: string },
  user: UserIdentifier,
  source: EntrySource,
  now: Date,
): Promise<EntryRecord | 'exists'> {
  const row = await trx
    .with('inserted', (db) =>
      db
        .insertInto('entries')
        .values({
          segment_id: segment.id,
          project_id: segment.projectId,
          identifier_type: user.identifierType,
          identifier: user.identifier,
          kind: 'static',
          source,
          added_at: now,
        })
        .onConflict((conflict) => conflict.doNothing())
        .returning(ENTRY_COLUMNS),
    )
    .with('counted', (db) =>
      db
        .updateTable('segments')
        .set((eb) => ({ entries_count: eb('entries_count', '+', 1n) }))
        .where('id', '=', segment.id)
        .where(({ exists, selectFrom }) => exists(selectFrom('inserted').select('identifier'))),
    )
    .selectFrom('inserted')
    .select(ENTRY_COLUMNS)
    .executeTakeFirst();
  if (!row) return 'exists';
  await appendOutboxEvents(trx, now, [
    entriesEvent('audience.entry_added', { project_id: segment.projectId, segment_id: segment.id }, 'static', [row]),
  ]);
  return toRecord(row);
}

type UserTierRow = { ord: number; segment_id: string; name: string; tier_rank: number };

type UserAudienceRow = Pick<Selectable<SegmentTable>, 'id' | 'name'> & {
  ord: number;
  badge_name: Selectable<BadgeTable>['name'] | null;
  badge_description: Selectable<BadgeTable>['description'];
  badge_image: Selectable<BadgeTable>['image_url'];
};

function toRecord(row: Pick<Selectable<EntryTable>, (typeof ENTRY_COLUMNS)[number]>): EntryRecord {
  return {
    identifier: row.identifier,
    identifierType: row.identifier_type,
    kind: row.kind,
    source: row.source,
    addedAt: row.added_at,
  };
}

/**
 * The lookups numbered in their order (`l`, its `ord` from 1), each joined to its user's entries
 * (`e`): for a statement that answers many users at once, each answer tied to its lookup.
 */
function lookupEntries(lookups: ReadonlyArray<{ projectId: string; user: UserIdentifier }>): RawBuilder<unknown> {
  return sql`unnest(${lookups.map((l) => l.projectId)}::uuid[],
                  ${lookups.map((l) => l.user.identifier)}::text[],
                  ${lookups.map((l) => l.user.identifierType)}::text[])
             WITH ORDINALITY AS l (project_id, identifier, identifier_type, ord)
      JOIN entries e
        ON e.project_id = l.project_id AND e.identifier = l.identifier AND e.identifier_type = l.identifier_type`;
}

/**
 * Publishes the segments the user is in (audience.memberships.published), inside the caller's
 * transaction, or nothing when it is in none. The entries are read FOR SHARE: a removal that has
 * already deleted one of them is waited for (and the entry is then not published), so the published
 * state is never older than an entry_removed event written before it.
 */
export async function publishUserMemberships(
  trx: Transaction<AudienceDatabase>,
  projectId: string,
  user: UserIdentifier,
  now: Date,
): Promise<number> {
  const rows = await trx
    .selectFrom('entries')
    .select(['segment_id', 'kind'])
    .where('project_id', '=', projectId)
    .where('identifier', '=', user.identifier)
    .where('identifier_type', '=', user.identifierType)
    .orderBy('segment_id')
    .forShare()
    .execute();
  if (rows.length === 0) return 0;
  await appendOutboxEvents(trx, now, [
    {
      type: 'audience.memberships.published',
      projectId,
      payload: {
        user: { identifier: user.identifier, identifier_type: user.identifierType },
        memberships: rows.map((row) => ({ segment_id: row.segment_id, kind: row.kind })),
      },
    },
  ]);
  return rows.length;
}
