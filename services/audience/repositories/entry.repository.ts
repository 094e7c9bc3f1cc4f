import { type Kysely, sql } from 'kysely';
import { isForeignKeyViolation } from '../../common/db/errors';
import type { UserIdentifier } from '../../common/identifiers';
import type { AudienceDatabase, EntryTable } from '../database';

export interface EntryRecord {
  identifier: string;
  identifierType: string;
  kind: EntryTable['kind'];
  source: EntryTable['source'];
  addedAt: Date;
}

/** Position of an entry in "newest first" order; the keyset behind entry cursors. */
export interface EntryKey {
  addedAt: Date;
  identifierType: string;
  identifier: string;
}

export interface UserAudienceRecord {
  id: string;
  name: string;
  badgeName: string | null;
  badgeDescription: string | null;
  badgeImageUrl: string | null;
}

export type EntryWindow = { limit: number; offset: number } | { limit: number; after: EntryKey };

export class EntryRepository {
  constructor(private readonly db: Kysely<AudienceDatabase>) {}

  /**
   * Adds one user unless already present, and counts it, in one statement.
   * Returns 'exists' when the user was there already (also under a concurrent identical add,
   * where the primary key lets exactly one insert win) and 'no_segment' when the segment is gone.
   */
  async insertOne(
    segment: { id: string; projectId: string },
    user: UserIdentifier,
    source: EntryTable['source'],
    now: Date,
  ): Promise<EntryRecord | 'exists' | 'no_segment'> {
    try {
      const result = await sql<EntryTable>`
        WITH inserted AS (
          INSERT INTO entries (segment_id, project_id, identifier_type, identifier, kind, source, added_at)
          VALUES (${segment.id}, ${segment.projectId}, ${user.identifierType}, ${user.identifier}, 'static', ${source}, ${now})
          ON CONFLICT DO NOTHING
          RETURNING *
        ), counted AS (
          UPDATE segments SET entries_count = entries_count + 1
          WHERE id = ${segment.id} AND EXISTS (SELECT 1 FROM inserted)
        )
        SELECT * FROM inserted`.execute(this.db);
      const row = result.rows[0];
      return row ? toRecord(row) : 'exists';
    } catch (error) {
      if (isForeignKeyViolation(error)) return 'no_segment';
      throw error;
    }
  }

  async list(segmentId: string, window: EntryWindow): Promise<EntryRecord[]> {
    let query = this.db
      .selectFrom('entries')
      .select(['identifier', 'identifier_type', 'kind', 'source', 'added_at'])
      .where('segment_id', '=', segmentId);
    if ('after' in window) {
      const { addedAt, identifierType, identifier } = window.after;
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

  /** Removes the user (any of the given forms) and keeps the segment's count right. */
  async deleteUser(segmentId: string, forms: UserIdentifier[]): Promise<number> {
    if (forms.length === 0) return 0;
    return this.db.transaction().execute(async (trx) => {
      const deleted = await trx
        .deleteFrom('entries')
        .where('segment_id', '=', segmentId)
        .where((eb) =>
          eb.or(forms.map((form) => eb.and([eb('identifier_type', '=', form.identifierType), eb('identifier', '=', form.identifier)]))),
        )
        .executeTakeFirst();
      const removed = Number(deleted.numDeletedRows);
      if (removed > 0) {
        await trx
          .updateTable('segments')
          .set({ entries_count: sql`entries_count - ${removed}` })
          .where('id', '=', segmentId)
          .execute();
      }
      return removed;
    });
  }

  /** Every segment of one user in one project, with its badge: the hot read path. */
  async findUserAudiences(projectId: string, user: UserIdentifier): Promise<UserAudienceRecord[]> {
    const rows = await this.db
      .selectFrom('entries')
      .innerJoin('segments', 'segments.id', 'entries.segment_id')
      .leftJoin('badges', 'badges.segment_id', 'segments.id')
      .select([
        'segments.id',
        'segments.name',
        'badges.name as badge_name',
        'badges.description as badge_description',
        'badges.image_url as badge_image_url',
      ])
      .where('entries.project_id', '=', projectId)
      .where('entries.identifier', '=', user.identifier)
      .where('entries.identifier_type', '=', user.identifierType)
      .orderBy('segments.created_at')
      .orderBy('segments.id')
      .execute();
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      badgeName: row.badge_name,
      badgeDescription: row.badge_description,
      badgeImageUrl: row.badge_image_url,
    }));
  }
}

function toRecord(row: Pick<EntryTable, 'identifier' | 'identifier_type' | 'kind' | 'source' | 'added_at'>): EntryRecord {
  return {
    identifier: row.identifier,
    identifierType: row.identifier_type,
    kind: row.kind,
    source: row.source,
    addedAt: row.added_at,
  };
}
