import type { InferResult, Kysely, Transaction } from 'kysely';
import { isUniqueViolation } from '../../platform/db/errors';
import { appendOutboxEvents } from '../../platform/outbox/append';
import type { NewOutboxEvent } from '../../platform/outbox/event';
import type { Page } from '../../rules/pagination';
import type { AudienceDatabase } from '../database';
import { holdDynamicSegmentsGate } from './dynamic-segments-gate';
import { requestEvaluation } from './segment-evaluation.repository';

export interface BadgeRecord {
  name: string;
  description: string | null;
  imageUrl: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface SegmentRecord {
  id: string;
  projectId: string;
  name: string;
  description: string | null;
  /** The condition as JSON text, exactly as stored. */
  conditionJson: string | null;
  entriesCount: bigint;
  /** Set: the segment is a tier of its project; a higher rank is a higher tier. */
  tierRank: number | null;
  badge: BadgeRecord | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewSegment {
  projectId: string;
  name: string;
  description: string | null;
  conditionJson: string | null;
  tierRank: number | null;
  /** Request a full evaluation of the segment in the same transaction (segment_evaluations). */
  requestEvaluation: boolean;
  now: Date;
}

export interface SegmentChanges {
  name?: string;
  description?: string | null;
  conditionJson?: string | null;
  tierRank?: number | null;
  /** Request a full evaluation of the segment in the same transaction (segment_evaluations). */
  requestEvaluation?: boolean;
  now: Date;
}

/** A segment as written, and the number of the evaluation requested with it, if one was. */
export interface SegmentWrite {
  segment: SegmentRecord;
  evaluationRequested: number | undefined;
  /** The write appended audience.segment_tier_changed to the outbox (wake the relay). */
  tierEventWritten: boolean;
}

/** Thrown when a segment's name is already used in its project. */
export class SegmentNameTaken extends Error {}

/** Thrown when another segment of the project already has the tier rank. */
export class TierRankTaken extends Error {}

/** The unique constraints a segment write can break, as the errors above. */
function translateUniqueViolation(error: unknown): unknown {
  if (isUniqueViolation(error, 'segments_project_name_key')) return new SegmentNameTaken();
  if (isUniqueViolation(error, 'segments_project_tier_rank_key')) return new TierRankTaken();
  return error;
}

export class SegmentRepository {
  constructor(private readonly db: Kysely<AudienceDatabase>) {}

  /**
   * Inserts the segment and, when asked, its evaluation request, in ONE transaction: a dynamic
   * segment never exists without the request that evaluates it (the relay queues a request whose
   * job was lost), whatever dies between the two.
   */
  async insert(segment: NewSegment): Promise<SegmentWrite> {
    try {
      const tierEventWritten = segment.tierRank !== null;
      const { id, evaluationRequested } = await this.db.transaction().execute(async (trx) => {
        if (segment.conditionJson !== null) await holdDynamicSegmentsGate(trx, segment.projectId);
        const { id } = await trx
          .insertInto('segments')
          .values({
            project_id: segment.projectId,
            name: segment.name,
            description: segment.description,
            condition: segment.conditionJson,
            tier_rank: segment.tierRank,
            created_at: segment.now,
            updated_at: segment.now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        if (tierEventWritten)
          await appendOutboxEvents(trx, segment.now, [tierEvent(segment.projectId, { id, name: segment.name, tier_rank: segment.tierRank })]);
        return { id, evaluationRequested: segment.requestEvaluation ? await requestEvaluation(trx, segment.projectId, id, segment.now) : undefined };
      });
      const inserted = await this.findById(segment.projectId, id);
      if (!inserted) throw new Error(`segment ${id} vanished right after its insert`);
      return { segment: inserted, evaluationRequested, tierEventWritten };
    } catch (error) {
      throw translateUniqueViolation(error);
    }
  }

  async findById(projectId: string, segmentId: string): Promise<SegmentRecord | undefined> {
    const row = await selectWithBadge(this.db).where('segments.project_id', '=', projectId).where('segments.id', '=', segmentId).executeTakeFirst();
    return row && toRecord(row);
  }

  /** True when the segment exists in the project; cheaper than findById where only that matters. */
  async exists(projectId: string, segmentId: string): Promise<boolean> {
    const row = await this.db.selectFrom('segments').select('id').where('project_id', '=', projectId).where('id', '=', segmentId).executeTakeFirst();
    return row !== undefined;
  }

  async list(projectId: string, page: Page): Promise<{ records: SegmentRecord[]; total: number }> {
    const [rows, count] = await Promise.all([
      selectWithBadge(this.db)
        .where('segments.project_id', '=', projectId)
        .orderBy('segments.created_at')
        .orderBy('segments.id')
        .limit(page.pageSize)
        .offset(page.offset)
        .execute(),
      this.db
        .selectFrom('segments')
        .select((eb) => eb.fn.countAll<bigint>().as('total'))
        .where('project_id', '=', projectId)
        .executeTakeFirstOrThrow(),
    ]);
    return { records: rows.map(toRecord), total: Number(count.total) };
  }

  /** Applies the changes and, when asked, requests the segment's evaluation, in ONE transaction (as insert). Undefined when the segment is not in the project. */
  async update(projectId: string, segmentId: string, changes: SegmentChanges): Promise<SegmentWrite | undefined> {
    try {
      const written = await this.db.transaction().execute(async (trx) => {
        if (changes.conditionJson !== undefined && changes.conditionJson !== null) await holdDynamicSegmentsGate(trx, projectId);
        const updated = await trx
          .updateTable('segments')
          .set({
            ...(changes.name !== undefined && { name: changes.name }),
            ...(changes.description !== undefined && { description: changes.description }),
            ...(changes.conditionJson !== undefined && { condition: changes.conditionJson }),
            ...(changes.tierRank !== undefined && { tier_rank: changes.tierRank }),
            updated_at: changes.now,
          })
          .where('project_id', '=', projectId)
          .where('id', '=', segmentId)
          .returning(['id', 'name', 'tier_rank'])
          .executeTakeFirst();
        if (!updated) return undefined;
        // The tier's state after this write, when the write may have changed it (a rank set to the same
        // value writes an event that changes nothing): the agency's tier projection follows it.
        const tierEventWritten = changes.tierRank !== undefined || (changes.name !== undefined && updated.tier_rank !== null);
        if (tierEventWritten) await appendOutboxEvents(trx, changes.now, [tierEvent(projectId, updated)]);
        return {
          tierEventWritten,
          evaluationRequested: changes.requestEvaluation ? await requestEvaluation(trx, projectId, segmentId, changes.now) : undefined,
        };
      });
      if (!written) return undefined;
      const segment = await this.findById(projectId, segmentId);
      return segment && { segment, ...written };
    } catch (error) {
      throw translateUniqueViolation(error);
    }
  }

  /** Entries, badge and batch history go with the segment (ON DELETE CASCADE); other services are told in one event. */
  async delete(projectId: string, segmentId: string, now: Date): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx.deleteFrom('segments').where('project_id', '=', projectId).where('id', '=', segmentId).executeTakeFirst();
      if (result.numDeletedRows === 0n) return false;
      await appendOutboxEvents(trx, now, [{ type: 'audience.segment_deleted', projectId, payload: { segment_id: segmentId } }]);
      return true;
    });
  }
}

/** The event that tells the agency's tier projection a segment's tier facts as this write leaves them. */
function tierEvent(projectId: string, segment: { id: string; name: string; tier_rank: number | null }): NewOutboxEvent {
  return { type: 'audience.segment_tier_changed', projectId, payload: { segment_id: segment.id, name: segment.name, tier_rank: segment.tier_rank } };
}

/**
 * Whether the segment exists in the project, holding it (FOR KEY SHARE) until the caller's
 * transaction ends, so it cannot be deleted before that transaction's entry is in.
 */
export async function holdSegment(trx: Transaction<AudienceDatabase>, projectId: string, segmentId: string): Promise<boolean> {
  const row = await trx
    .selectFrom('segments')
    .select('id')
    .where('project_id', '=', projectId)
    .where('id', '=', segmentId)
    .forKeyShare()
    .executeTakeFirst();
  return row !== undefined;
}

/** A segment with its badge, if any. The condition is read as text: jsonb parsed by the driver would not keep numbers exactly as stored. */
function selectWithBadge(db: Kysely<AudienceDatabase>) {
  return db
    .selectFrom('segments')
    .leftJoin('badges', 'badges.segment_id', 'segments.id')
    .select((eb) => [
      'segments.id',
      'segments.project_id',
      'segments.name',
      'segments.description',
      'segments.entries_count',
      'segments.tier_rank',
      'segments.created_at',
      'segments.updated_at',
      eb.cast<string | null>('segments.condition', 'text').as('condition_json'),
      'badges.segment_id as badge_segment_id',
      'badges.name as badge_name',
      'badges.description as badge_description',
      'badges.image_url as badge_image_url',
      'badges.created_at as badge_created_at',
      'badges.updated_at as badge_updated_at',
    ]);
}

type SegmentWithBadgeRow = InferResult<ReturnType<typeof selectWithBadge>>[number];

function toRecord(row: SegmentWithBadgeRow): SegmentRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    description: row.description,
    conditionJson: row.condition_json,
    entriesCount: row.entries_count,
    tierRank: row.tier_rank,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    badge: toBadge(row),
  };
}

/** The left join's badge columns: all set (a badge) or all null (none); the NOT NULL ones prove which. */
function toBadge(row: SegmentWithBadgeRow): BadgeRecord | null {
  const { badge_segment_id: segmentId, badge_name: name, badge_created_at: createdAt, badge_updated_at: updatedAt } = row;
  if (segmentId === null) return null;
  if (name === null || createdAt === null || updatedAt === null) throw new Error(`the badge of segment ${segmentId} lacks a NOT NULL column`);
  return { name, description: row.badge_description, imageUrl: row.badge_image_url, createdAt, updatedAt };
}
