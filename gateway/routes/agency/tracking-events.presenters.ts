import type { TrackingEvent } from '../../../gen/referral/agency/v1/agency';
import { TrackingOutcome } from '../../../gen/referral/agency/v1/enums';
import { optionalNameOf, required } from '../../http/present';

export function presentTrackingEvent(event: TrackingEvent) {
  return {
    id: event.id,
    name: event.name,
    tracking_id: event.trackingId,
    user_identifier: event.user?.identifier ?? null,
    user_identifier_type: event.user?.identifierType ?? null,
    signature_verified: event.signatureVerified,
    referrer: event.referrer ?? null,
    received_at: required(event.receivedAt, 'received_at').toISOString(),
    processed_at: event.processedAt?.toISOString() ?? null,
    outcome: optionalNameOf(TrackingOutcome, event.outcome, 'outcome'),
    affiliate_id: event.affiliateId ?? null,
    code: event.code ?? null,
    args: jsonObject(event.argsJson),
    metadata: jsonObject(event.metadataJson),
  };
}

function jsonObject(text: string): Record<string, unknown> {
  const value: unknown = text ? JSON.parse(text) : {};
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
