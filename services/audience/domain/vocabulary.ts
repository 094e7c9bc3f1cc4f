import * as enums from '../../../gen/referral/audience/v1/enums';
import { enumNames, type Vocabularies } from '../../rules/enums';

/**
 * The audience service's vocabularies, as the domain, the tables and the API spell them
 * ("dashboard"). Each is derived from its enum in proto/referral/audience/v1/enums.proto.
 */
type Vocabulary = Vocabularies<typeof enums>;

export type SegmentType = Vocabulary['SegmentType'];
export type EntryKind = Vocabulary['EntryKind'];
export type EntrySource = Vocabulary['EntrySource'];
export type EntryBatchStatus = Vocabulary['EntryBatchStatus'];

/** A segment with a condition is dynamic; without one, static. */
export function segmentType(segment: { conditionJson: string | null }): SegmentType {
  return segment.conditionJson === null ? 'static' : 'dynamic';
}

/** Whether a batch has reached its end (it changes no more). */
export const BATCH_FINISHED: Record<EntryBatchStatus, boolean> = { queued: false, active: false, completed: true, failed: true };

/** The statuses of a batch still to be applied. */
export const UNFINISHED_BATCH_STATUSES = enumNames(enums.EntryBatchStatus).filter((status) => !BATCH_FINISHED[status]);

/** The states of a segment's evaluation; the same as a batch's. */
export type EvaluationStatus = EntryBatchStatus;
