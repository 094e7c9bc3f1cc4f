import { sql, type Transaction } from 'kysely';
import type { EventPayload } from '../../platform/events/contracts';
import { defineConsumer } from '../../platform/outbox/consumer';
import type { AudienceDatabase } from '../database';
import { recordRematches } from './condition-inputs.consumer';

type Counts = EventPayload<'agency.user_events.counted'>['counts'];

/**
 * The audience's projection of `agency.user_events.counted` into `user_event_days` (migration 0013),
 * what `event_count` conditions read: each count is added to its user's row of that name and UTC day.
 * Applied once per event id (processed_events, in the same transaction); sums only, so arrival order
 * does not matter. The users whose counts changed are recorded for re-matching in the same
 * transaction, as the condition inputs' are, so a new count re-evaluates the user as a conversion does.
 */
export const userEventCounts = defineConsumer<AudienceDatabase, 'agency.user_events.counted'>({
  name: 'audience-user-event-counts',
  eventTypes: ['agency.user_events.counted'],
  handle: async (trx, event, { now }) => {
    if (event.payload.project_id !== event.projectId) {
      return { ignored: `the counts name project ${event.payload.project_id}, the event ${event.projectId}` };
    }
    await addEventDays(trx, event.projectId, event.payload.counts);
    const users = event.payload.counts.map((count) => ({ identifier: count.user.identifier, identifierType: count.user.identifier_type }));
    await recordRematches(trx, event.projectId, users, now);
  },
});

/** One statement: the counts summed per (user, name, day), added to the rows in a fixed order (no deadlock between two events). */
async function addEventDays(trx: Transaction<AudienceDatabase>, projectId: string, counts: Counts): Promise<void> {
  await sql`
    INSERT INTO user_event_days AS d (project_id, identifier_type, identifier, name, day, count)
    SELECT ${projectId}::uuid, c.identifier_type, c.identifier, c.name, c.day::date, sum(c.count)
    FROM unnest(
      ${counts.map((count) => count.user.identifier_type)}::text[], ${counts.map((count) => count.user.identifier)}::text[],
      ${counts.map((count) => count.name)}::text[], ${counts.map((count) => count.day)}::text[], ${counts.map((count) => count.count)}::int8[]
    ) AS c(identifier_type, identifier, name, day, count)
    GROUP BY c.identifier_type, c.identifier, c.name, c.day
    ORDER BY c.identifier_type, c.identifier, c.name, c.day
    ON CONFLICT (project_id, identifier_type, identifier, name, day) DO UPDATE SET count = d.count + excluded.count`.execute(trx);
}
