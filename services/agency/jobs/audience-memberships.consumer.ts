import { defineConsumer } from '../../platform/outbox/consumer';
import type { AgencyDatabase } from '../database';
import { applyMembershipChange, applyPublishedMemberships, forgetSegment } from '../repositories/membership.repository';

/**
 * The audience service's entry events, kept for the project's affiliates as the agency's membership
 * projection behind the affiliate list's `audience` and `audience_ids` filters and the tiers (a
 * join, never a call per row); a new affiliate's earlier entries arrive as
 * audience.memberships.published (membership.repository.ts). Each event is applied once
 * (processed_events) and in the order of the audience service's clock, whatever order it arrives in.
 */
export const audienceMemberships = defineConsumer<
  AgencyDatabase,
  'audience.entry_added' | 'audience.entry_removed' | 'audience.segment_deleted' | 'audience.memberships.published'
>({
  name: 'agency-audience-memberships',
  eventTypes: ['audience.entry_added', 'audience.entry_removed', 'audience.segment_deleted', 'audience.memberships.published'],
  handle: async (trx, event) => {
    switch (event.type) {
      case 'audience.entry_added':
      case 'audience.entry_removed':
        await applyMembershipChange(trx, {
          projectId: event.projectId,
          segmentId: event.payload.segment_id,
          kind: event.payload.kind,
          users: event.payload.users,
          present: event.type === 'audience.entry_added',
          at: event.createdAt,
        });
        return;
      case 'audience.memberships.published':
        await applyPublishedMemberships(trx, event.projectId, event.payload.user, event.payload.memberships, event.createdAt);
        return;
      case 'audience.segment_deleted':
        await forgetSegment(trx, event.projectId, event.payload.segment_id, event.createdAt);
        return;
    }
  },
});
