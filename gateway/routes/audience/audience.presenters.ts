import type { Badge, Entry, EntryBatch, Segment, UserAudience } from '../../../gen/referral/audience/v1/audience';
import { iso, oneOf } from '../../http/present';
import { entryBatchSchema, entrySchema } from './audience.schemas';

/** gRPC messages -> the JSON the API documents (audience.schemas.ts). */
export function presentBadge(badge: Badge) {
  return {
    name: badge.name,
    description: badge.description ?? null,
    image_url: badge.imageUrl ?? null,
    created_at: iso(badge.createdAt),
    updated_at: iso(badge.updatedAt),
  };
}

export function presentSegment(segment: Segment) {
  return {
    id: segment.id,
    name: segment.name,
    description: segment.description ?? null,
    type: segment.type as 'static' | 'dynamic',
    condition: segment.conditionJson ? (JSON.parse(segment.conditionJson) as Record<string, unknown>) : null,
    entries_count: Number(segment.entriesCount),
    badge: segment.badge ? presentBadge(segment.badge) : null,
    created_at: iso(segment.createdAt),
    updated_at: iso(segment.updatedAt),
  };
}

export function presentEntry(entry: Entry) {
  return {
    identifier: entry.identifier,
    identifier_type: entry.identifierType,
    kind: oneOf(entrySchema.shape.kind.options, entry.kind, 'entry.kind'),
    source: oneOf(entrySchema.shape.source.options, entry.source, 'entry.source'),
    added_at: iso(entry.addedAt),
  };
}

export function presentEntryBatch(batch: EntryBatch) {
  return {
    job_id: batch.jobId,
    status: oneOf(entryBatchSchema.shape.status.options, batch.status, 'batch.status'),
    received: Number(batch.received),
    added: Number(batch.added),
    skipped: Number(batch.skipped),
    error: batch.error ?? null,
  };
}

export function presentUserAudience(audience: UserAudience) {
  return {
    id: audience.id,
    name: audience.name,
    badge_name: audience.badgeName ?? null,
    badge_description: audience.badgeDescription ?? null,
    badge_image: audience.badgeImage ?? null,
  };
}
