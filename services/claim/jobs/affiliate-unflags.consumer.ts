import { defineConsumer } from '../../platform/outbox/consumer';
import type { ClaimDatabase } from '../database';
import { releaseFlaggedMovements } from '../repositories/movement-status.repository';

/**
 * The agency's affiliate status changes, for one of them: an affiliate unflagged (flagged -> active).
 * The movements that waited for `review` because of its flag go on to their hold, or become available
 * when it has passed (releaseFlaggedMovements); those of conversions a review rule flagged keep waiting
 * for an admin. Applied once (processed_events); a later delivery finds nothing waiting. Every other
 * change (flagged, suspended, reactivated, a flag ended by a suspension) asks nothing of the claim service.
 */
export const affiliateUnflags = defineConsumer<ClaimDatabase, 'agency.affiliate.status_changed'>({
  name: 'claim-affiliate-unflags',
  eventTypes: ['agency.affiliate.status_changed'],
  handle: async (trx, event, { now, logger }) => {
    const { payload } = event;
    if (payload.from !== 'flagged' || payload.to !== 'active') return { ignored: `a change from ${payload.from} to ${payload.to} releases nothing` };
    const released = await releaseFlaggedMovements(trx, event.projectId, payload.affiliate_id, now);
    if (released > 0)
      logger.info(
        { project_id: event.projectId, affiliate_id: payload.affiliate_id, movements: released },
        'unflagged affiliate: movements released from review',
      );
  },
});
