import type { Badge, Entry, EntryBatch, Segment, UserAudience, UserAudienceResult } from '../../../gen/referral/audience/v1/audience';
import type { UserAudienceOutcome } from '../domain/user-audience.service';
import type { EntryBatchRecord } from '../repositories/entry-batch.repository';
import type { EntryRecord, UserAudienceRecord } from '../repositories/entry.repository';
import type { BadgeRecord, SegmentRecord } from '../repositories/segment.repository';

/** Records -> protobuf messages. Nulls become absent optional fields. */
export function toBadgeMessage(badge: BadgeRecord): Badge {
  return {
    name: badge.name,
    description: badge.description ?? undefined,
    imageUrl: badge.imageUrl ?? undefined,
    createdAt: badge.createdAt,
    updatedAt: badge.updatedAt,
  };
}

export function toSegmentMessage(segment: SegmentRecord): Segment {
  return {
    id: segment.id,
    name: segment.name,
    description: segment.description ?? undefined,
    type: segment.conditionJson === null ? 'static' : 'dynamic',
    conditionJson: segment.conditionJson ?? undefined,
    entriesCount: segment.entriesCount,
    badge: segment.badge ? toBadgeMessage(segment.badge) : undefined,
    createdAt: segment.createdAt,
    updatedAt: segment.updatedAt,
  };
}

export function toEntryMessage(entry: EntryRecord): Entry {
  return {
    identifier: entry.identifier,
    identifierType: entry.identifierType,
    kind: entry.kind,
    source: entry.source,
    addedAt: entry.addedAt,
  };
}

export function toEntryBatchMessage(batch: EntryBatchRecord): EntryBatch {
  return {
    jobId: batch.id,
    status: batch.status,
    received: String(batch.received),
    added: String(batch.added),
    skipped: String(batch.skipped),
    error: batch.error ?? undefined,
  };
}

export function toUserAudienceMessage(audience: UserAudienceRecord): UserAudience {
  return {
    id: audience.id,
    name: audience.name,
    badgeName: audience.badgeName ?? undefined,
    badgeDescription: audience.badgeDescription ?? undefined,
    badgeImage: audience.badgeImageUrl ?? undefined,
  };
}

export function toUserAudienceResult(outcome: UserAudienceOutcome): UserAudienceResult {
  if ('error' in outcome) {
    return {
      audiences: [],
      error: { code: outcome.error.code, message: outcome.error.message, details: outcome.error.details },
    };
  }
  return { audiences: outcome.audiences.map(toUserAudienceMessage) };
}
