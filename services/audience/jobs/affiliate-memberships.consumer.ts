import { checkIdentifier } from '../../rules/identifiers';
import { defineConsumer } from '../../platform/outbox/consumer';
import type { AudienceDatabase } from '../database';
import { publishUserMemberships } from '../repositories/entry.repository';

/**
 * A user became an affiliate (agency service): its current segments are published to the agency,
 * whose membership projection keeps affiliates only and so set aside the user's earlier entry events
 * (issue 27 §3: projecting every entry doubled the cost of an ingest). Entries written after this
 * reach the agency by their own events, which it keeps now that the user is an affiliate. Applied
 * once per event (processed_events); publishing twice would be harmless (the state, not a change).
 */
export const affiliateMemberships = defineConsumer<AudienceDatabase, 'agency.affiliate.created'>({
  name: 'audience-affiliate-memberships',
  eventTypes: ['agency.affiliate.created'],
  handle: async (trx, event, { now }) => {
    const { affiliate_id: affiliateId, user } = event.payload;
    const checked = checkIdentifier(user.identifier, user.identifier_type);
    if (!checked.user) {
      return { ignored: `affiliate ${affiliateId}: the user's identifier is invalid (${checked.violations.map((v) => v.reason).join('; ')})` };
    }
    await publishUserMemberships(trx, event.projectId, checked.user, now);
  },
});
