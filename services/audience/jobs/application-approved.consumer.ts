import { checkIdentifier } from '../../rules/identifiers';
import { defineConsumer } from '../../platform/outbox/consumer';
import type { AudienceDatabase } from '../database';
import { addEntry } from '../repositories/entry.repository';
import { holdSegment } from '../repositories/segment.repository';

/**
 * An approved affiliate application (agency service) puts the user in the static segment the admin
 * chose. Applied once per event (processed_events); a user already there changes nothing; a segment
 * deleted since the approval, or a user the event cannot name, is recorded as ignored, not retried.
 */
export const applicationApprovals = defineConsumer<AudienceDatabase, 'agency.application.approved'>({
  name: 'audience-application-approvals',
  eventTypes: ['agency.application.approved'],
  handle: async (trx, event, { now }) => {
    const { project_id: projectId, audience_id: segmentId, application_id: applicationId, user } = event.payload;
    const checked = checkIdentifier(user.identifier, user.identifier_type);
    if (!checked.user) {
      return { ignored: `application ${applicationId}: the user's identifier is invalid (${checked.violations.map((v) => v.reason).join('; ')})` };
    }
    if (projectId !== event.projectId || !(await holdSegment(trx, projectId, segmentId))) {
      return { ignored: `application ${applicationId}: audience ${segmentId} no longer exists in project ${projectId}, so the user was not added` };
    }
    await addEntry(trx, { id: segmentId, projectId }, checked.user, 'api', now);
  },
});
