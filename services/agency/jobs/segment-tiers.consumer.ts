import { defineConsumer } from '../../platform/outbox/consumer';
import type { AgencyDatabase } from '../database';
import { applyTierChange, forgetTierSegment } from '../repositories/segment-tier.repository';

/**
 * The audience service's tier facts (which segments are tiers, their ranks and names), kept as the
 * agency's tier projection: with the membership projection it gives each affiliate's current tier
 * to attribution (one statement per batch, no call to the audience service) and to the affiliate
 * bodies. Each event is applied once (processed_events) and in the order of the audience
 * service's clock, whatever order it arrives in.
 */
export const segmentTiers = defineConsumer<AgencyDatabase, 'audience.segment_tier_changed' | 'audience.segment_deleted'>({
  name: 'agency-segment-tiers',
  eventTypes: ['audience.segment_tier_changed', 'audience.segment_deleted'],
  handle: async (trx, event) => {
    switch (event.type) {
      case 'audience.segment_tier_changed':
        await applyTierChange(trx, {
          projectId: event.projectId,
          segmentId: event.payload.segment_id,
          name: event.payload.name,
          tierRank: event.payload.tier_rank,
          at: event.createdAt,
        });
        return;
      case 'audience.segment_deleted':
        await forgetTierSegment(trx, event.projectId, event.payload.segment_id, event.createdAt);
        return;
    }
  },
});
