import type { Kysely, Selectable } from 'kysely';
import { isForeignKeyViolation, isUniqueViolation } from '../../platform/db/errors';
import type { AudienceDatabase, BadgeTable } from '../database';
import type { BadgeRecord } from './segment.repository';

export interface BadgeFields {
  name: string;
  description: string | null;
  imageUrl: string | null;
}

/** Thrown when the segment already has its one badge. */
export class BadgeExists extends Error {}

export class BadgeRepository {
  constructor(private readonly db: Kysely<AudienceDatabase>) {}

  /** Undefined when the segment no longer exists. */
  async insert(segmentId: string, fields: BadgeFields, now: Date): Promise<BadgeRecord | undefined> {
    try {
      const row = await this.db
        .insertInto('badges')
        .values({
          segment_id: segmentId,
          name: fields.name,
          description: fields.description,
          image_url: fields.imageUrl,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRecord(row);
    } catch (error) {
      if (isUniqueViolation(error, 'badges_pkey')) throw new BadgeExists();
      if (isForeignKeyViolation(error)) return undefined;
      throw error;
    }
  }

  async update(segmentId: string, fields: Partial<BadgeFields>, now: Date): Promise<BadgeRecord | undefined> {
    const row = await this.db
      .updateTable('badges')
      .set({
        ...(fields.name !== undefined && { name: fields.name }),
        ...(fields.description !== undefined && { description: fields.description }),
        ...(fields.imageUrl !== undefined && { image_url: fields.imageUrl }),
        updated_at: now,
      })
      .where('segment_id', '=', segmentId)
      .returningAll()
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async delete(segmentId: string): Promise<boolean> {
    const result = await this.db.deleteFrom('badges').where('segment_id', '=', segmentId).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}

function toRecord(row: Selectable<BadgeTable>): BadgeRecord {
  return {
    name: row.name,
    description: row.description,
    imageUrl: row.image_url,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
