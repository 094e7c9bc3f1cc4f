import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { AgencyDatabase } from '../../services/agency/database';
import { audienceMemberships } from '../../services/agency/jobs/audience-memberships.consumer';
import { segmentTiers } from '../../services/agency/jobs/segment-tiers.consumer';
import type { Clock } from '../../services/platform/clock';
import type { EventType } from '../../services/platform/events/contracts';
import type { Logger } from '../../services/platform/logger';
import { deliverEvent, type EventConsumer } from '../../services/platform/outbox/consumer';
import { SERVICE_CATALOG } from '../../services/platform/service-catalog';

/** The agency's consumers of the audience service's events: its membership and tier projections. */
const AGENCY_AUDIENCE_CONSUMERS = [audienceMemberships, segmentTiers] as unknown as Array<EventConsumer<AgencyDatabase, EventType>>;

/**
 * Brings the agency's projections of the audience service up to date in the medium tier, where no
 * relay or worker runs (deliverProducedEvents).
 */
export async function projectAudienceEvents(sql: pg.Pool, agencyDb: Kysely<AgencyDatabase>, clock: Clock, logger: Logger): Promise<void> {
  await deliverProducedEvents(sql, SERVICE_CATALOG.audience.schema, agencyDb, AGENCY_AUDIENCE_CONSUMERS, clock, logger);
}

/**
 * Every event of the producer's outbox (`producerSchema`) that one of the agency's `consumers`
 * takes and has not applied yet is delivered to it, in the order written, through the consumer's
 * own delivery (deliverEvent: applied once, recorded in processed_events), as the agency's workers do.
 */
export async function deliverProducedEvents(
  sql: pg.Pool,
  producerSchema: string,
  agencyDb: Kysely<AgencyDatabase>,
  consumers: ReadonlyArray<EventConsumer<AgencyDatabase, EventType>>,
  clock: Clock,
  logger: Logger,
): Promise<void> {
  const agency = SERVICE_CATALOG.agency.schema;
  for (const consumer of consumers) {
    const { rows } = await sql.query<{ id: string; type: string; project_id: string; payload: unknown; created_at: Date }>(
      `SELECT o.id, o.type, o.project_id, o.payload, o.created_at FROM ${producerSchema}.outbox o
       WHERE o.type = ANY($1) AND NOT EXISTS (SELECT 1 FROM ${agency}.processed_events p WHERE p.consumer = $2 AND p.event_id = o.id)
       ORDER BY o.seq`,
      [consumer.eventTypes, consumer.name],
    );
    for (const row of rows) {
      await deliverEvent(
        agencyDb,
        consumer,
        { id: row.id, type: row.type, projectId: row.project_id, payload: row.payload, createdAt: row.created_at.toISOString() },
        clock,
        logger,
      );
    }
  }
}
