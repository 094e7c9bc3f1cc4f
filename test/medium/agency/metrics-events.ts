import type { AgencyDatabase } from '../../../services/agency/database';
import { affiliateMetrics } from '../../../services/agency/jobs/affiliate-metrics.consumer';
import type { EventPayload, EventType } from '../../../services/platform/events/contracts';
import type { EventConsumer } from '../../../services/platform/outbox/consumer';
import type { AgencyHarness } from '../../helpers/agency-domain';
import { deliverTo, eventNow } from '../../helpers/domain';

/** The affiliate metrics' consumer as its worker holds it (any event type; it ignores the others). */
export const metricsConsumer = affiliateMetrics as unknown as EventConsumer<AgencyDatabase, EventType>;

/** Hands a paid or reversed conversion to the affiliate metrics' consumer as its worker does, at the harness clock's now. */
export function metricsDelivery(harness: AgencyHarness) {
  return <T extends 'claim.conversion.processed' | 'claim.conversion.reversed'>(projectId: string, type: T, payload: EventPayload<T>, id?: string) =>
    deliverTo(harness, metricsConsumer, eventNow(harness, projectId, type, payload, id));
}
