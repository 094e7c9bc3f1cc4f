import type { Badge, Entry, EntryBatch, Segment, SegmentEvaluation, UserAudience } from '../../../gen/referral/audience/v1/audience';
import { EntryBatchStatus, EntryKind, EntrySource, SegmentType } from '../../../gen/referral/audience/v1/enums';
import { count, nameOf, snakeCase } from '../../http/present';

/** gRPC messages -> the JSON the API documents (audience.schemas.ts). */
export function presentBadge(badge: Badge) {
  return snakeCase(badge, ['createdAt', 'updatedAt']);
}

export function presentSegment(segment: Segment) {
  const { conditionJson, badge, tierRank, ...fields } = segment;
  return {
    ...snakeCase(fields, ['createdAt', 'updatedAt']),
    tier_rank: tierRank ?? null,
    type: nameOf(SegmentType, segment.type, 'type'),
    condition: conditionJson ? parseCondition(conditionJson) : null,
    entries_count: count(segment.entriesCount, 'entries_count'),
    badge: badge ? presentBadge(badge) : null,
  };
}

/** The service stores a condition only once it has checked it is a JSON object. */
function parseCondition(json: string): Record<string, unknown> {
  const condition: unknown = JSON.parse(json);
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) {
    throw new Error("the service's reply has a condition that is no JSON object");
  }
  return condition as Record<string, unknown>;
}

export function presentEntry(entry: Entry) {
  return {
    ...snakeCase(entry, ['addedAt']),
    kind: nameOf(EntryKind, entry.kind, 'kind'),
    source: nameOf(EntrySource, entry.source, 'source'),
  };
}

export function presentEntryBatch(batch: EntryBatch) {
  return {
    ...snakeCase(batch),
    status: nameOf(EntryBatchStatus, batch.status, 'status'),
    received: count(batch.received, 'received'),
    added: count(batch.added, 'added'),
    skipped: count(batch.skipped, 'skipped'),
  };
}

export function presentUserAudience(audience: UserAudience) {
  return snakeCase(audience);
}

/** Timestamps and counts not set yet (queued, or not finished) are null. */
export function presentSegmentEvaluation(evaluation: SegmentEvaluation) {
  const optionalCount = (value: string | undefined, field: string) => (value === undefined ? null : count(value, field));
  return {
    status: nameOf(EntryBatchStatus, evaluation.status, 'status'),
    started_at: evaluation.startedAt?.toISOString() ?? null,
    finished_at: evaluation.finishedAt?.toISOString() ?? null,
    matched: optionalCount(evaluation.matched, 'matched'),
    added: optionalCount(evaluation.added, 'added'),
    removed: optionalCount(evaluation.removed, 'removed'),
  };
}
