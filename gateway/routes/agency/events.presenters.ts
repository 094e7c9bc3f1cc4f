import type { RecordTrackingEventsResponse } from '../../../gen/referral/agency/v1/agency';

/** What POST /api/v1/events answers: how many events were stored, and which of a batch were duplicates. */
export function presentRecordedEvents(recorded: RecordTrackingEventsResponse): { accepted: number; duplicates: number[] } {
  return { accepted: recorded.accepted, duplicates: recorded.duplicates };
}
