import type { AgencyServiceServer, TrackingEvent } from '../../../gen/referral/agency/v1/agency';
import { TrackingOutcome } from '../../../gen/referral/agency/v1/enums';
import { enumValue } from '../../rules/enums';
import type { UnaryHandlers } from '../../platform/grpc/service';
import { pageInfo, toPage } from '../../rules/pagination';
import type { AgencyDomain } from '../composition';
import type { TrackingEventRecord } from '../repositories/tracking.repository';

type TrackingHandlers = Pick<UnaryHandlers<AgencyServiceServer>, 'listTrackingEvents'>;

/** Tracking events: protobuf <-> domain, no rules (as agency.grpc.ts). */
export function trackingHandlers(domain: AgencyDomain): TrackingHandlers {
  return {
    listTrackingEvents: async (req) => {
      const page = toPage(req.page);
      const { records, total } = await domain.tracking.list(req.projectId, { trackingId: req.trackingId, name: req.name, user: req.user }, page);
      return { results: records.map(toTrackingEventMessage), pageInfo: pageInfo(page, total) };
    },
  };
}

function toTrackingEventMessage(event: TrackingEventRecord): TrackingEvent {
  return {
    id: event.id,
    name: event.name,
    trackingId: event.trackingId,
    user: event.user ?? undefined,
    signatureVerified: event.signatureVerified,
    referrer: event.referrer ?? undefined,
    receivedAt: event.receivedAt,
    processedAt: event.processedAt ?? undefined,
    outcome: event.outcome ? enumValue(TrackingOutcome, event.outcome) : TrackingOutcome.UNSPECIFIED,
    affiliateId: event.affiliateId ?? undefined,
    code: event.code ?? undefined,
    argsJson: JSON.stringify(event.args ?? {}),
    metadataJson: JSON.stringify(event.metadata ?? {}),
  };
}
