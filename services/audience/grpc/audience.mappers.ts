import type {
  Badge,
  Entry,
  EntryBatch,
  Segment,
  SegmentEvaluation,
  TraitValue as TraitValueMessage,
  UserAudienceResult,
  UserTierResult,
  UserTrait,
} from '../../../gen/referral/audience/v1/audience';
import { EntryBatchStatus, EntryKind, EntrySource, SegmentType } from '../../../gen/referral/audience/v1/enums';
import { enumValue } from '../../rules/enums';
import { withoutNulls } from '../../platform/grpc/messages';
import type { TraitValue } from '../domain/trait-fields';
import type { UserAudienceOutcome, UserTierOutcome } from '../domain/user-audience.service';
import { segmentType } from '../domain/vocabulary';
import type { EntryBatchRecord } from '../repositories/entry-batch.repository';
import type { EntryRecord } from '../repositories/entry.repository';
import type { EvaluationRecord } from '../repositories/segment-evaluation.repository';
import type { BadgeRecord, SegmentRecord } from '../repositories/segment.repository';
import type { UserTraitRecord } from '../repositories/trait.repository';

/** Records -> protobuf messages: nulls become absent optional fields, vocabularies become their enums. */
export function toBadgeMessage(badge: BadgeRecord): Badge {
  return withoutNulls(badge);
}

export function toSegmentMessage(segment: SegmentRecord): Segment {
  return {
    ...withoutNulls(segment),
    type: enumValue(SegmentType, segmentType(segment)),
    entriesCount: String(segment.entriesCount),
  };
}

export function toEntryMessage(entry: EntryRecord): Entry {
  return { ...entry, kind: enumValue(EntryKind, entry.kind), source: enumValue(EntrySource, entry.source) };
}

export function toEntryBatchMessage(batch: EntryBatchRecord): EntryBatch {
  return {
    jobId: batch.id,
    status: enumValue(EntryBatchStatus, batch.status),
    received: String(batch.received),
    added: String(batch.added),
    skipped: String(batch.skipped),
    error: batch.error ?? undefined,
  };
}

export function toUserAudienceResult(outcome: UserAudienceOutcome): UserAudienceResult {
  if ('error' in outcome) {
    const { code, message, details } = outcome.error;
    return { audiences: [], error: { code, message, details } };
  }
  return { audiences: outcome.audiences.map(withoutNulls) };
}

export function toUserTierResult(outcome: UserTierOutcome): UserTierResult {
  if ('error' in outcome) {
    const { code, message, details } = outcome.error;
    return { error: { code, message, details } };
  }
  return outcome.tier ? { tier: outcome.tier } : {};
}

export function toSegmentEvaluationMessage(evaluation: EvaluationRecord): SegmentEvaluation {
  const count = (value: number | null) => (value === null ? undefined : String(value));
  return {
    status: enumValue(EntryBatchStatus, evaluation.status),
    startedAt: evaluation.startedAt ?? undefined,
    finishedAt: evaluation.finishedAt ?? undefined,
    matched: count(evaluation.matched),
    added: count(evaluation.added),
    removed: count(evaluation.removed),
  };
}

export function toTraitValueMessage(value: TraitValue): TraitValueMessage {
  switch (value.kind) {
    case 'number':
      return { number: value.text };
    case 'string':
      return { text: value.text };
    case 'boolean':
      return { flag: value.value };
  }
}

export function toUserTraitMessage(trait: UserTraitRecord): UserTrait {
  return { name: trait.name, value: toTraitValueMessage(trait.value), updatedAt: trait.updatedAt };
}
