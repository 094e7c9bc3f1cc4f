import {
  EntryBatchStatus as EntryBatchStatusEnum,
  EntryKind as EntryKindEnum,
  EntrySource as EntrySourceEnum,
  SegmentType as SegmentTypeEnum,
} from '../../../gen/referral/audience/v1/enums';
import { type EnumName, enumNames } from '../../rules/enums';

/**
 * The audience service's vocabularies, as the domain, the tables and the API spell them
 * ("dashboard"). Each is derived from its enum in proto/referral/audience/v1/enums.proto.
 */
export type SegmentType = EnumName<typeof SegmentTypeEnum>;
export type EntryKind = EnumName<typeof EntryKindEnum>;
export type EntrySource = EnumName<typeof EntrySourceEnum>;
export type EntryBatchStatus = EnumName<typeof EntryBatchStatusEnum>;

/** A segment with a condition is dynamic; without one, static. */
export function segmentType(segment: { conditionJson: string | null }): SegmentType {
  return segment.conditionJson === null ? 'static' : 'dynamic';
}

/** Whether a batch has reached its end (it changes no more). */
export const BATCH_FINISHED: Record<EntryBatchStatus, boolean> = { queued: false, active: false, completed: true, failed: true };

/** The statuses of a batch still to be applied. */
export const UNFINISHED_BATCH_STATUSES = enumNames(EntryBatchStatusEnum).filter((status) => !BATCH_FINISHED[status]);

/** The states of a segment's evaluation; the same as a batch's. */
export type EvaluationStatus = EntryBatchStatus;
