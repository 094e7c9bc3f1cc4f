import type pg from 'pg';
import { EVENT_CONSUMER_LIST } from '../../services/common/events/consumers';
import { SERVICE_CATALOG } from '../../services/common/service-catalog';
import { pollUntil } from './poll';

/** The agency's consumers of the audience service's events (its membership and tier projections), with those event types. */
const AUDIENCE_PROJECTIONS = EVENT_CONSUMER_LIST.filter((consumer) => consumer.service === 'agency').map((consumer) => ({
  name: consumer.name,
  types: consumer.eventTypes.filter((type) => type.startsWith('audience.')),
})).filter((consumer) => consumer.types.length > 0);

/**
 * Waits until the agency's projections have applied every audience event written so far, in a
 * stack whose relay and workers run: what a test does before it reads a tier or a membership the
 * agency answers from them (eventually consistent, DESIGN §7).
 */
export async function audienceEventsProjected(stack: { db: pg.Pool }, timeoutMs = 15_000): Promise<void> {
  const { audience, agency } = { audience: SERVICE_CATALOG.audience.schema, agency: SERVICE_CATALOG.agency.schema };
  await pollUntil(
    async () => {
      let pending = 0;
      for (const consumer of AUDIENCE_PROJECTIONS) {
        const { rows } = await stack.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${audience}.outbox o
           WHERE o.type = ANY($1) AND NOT EXISTS (SELECT 1 FROM ${agency}.processed_events p WHERE p.consumer = $2 AND p.event_id = o.id)`,
          [consumer.types, consumer.name],
        );
        pending += rows[0]!.n;
      }
      return pending === 0;
    },
    { timeoutMs, intervalMs: 50, what: 'the agency to apply the audience events written so far' },
  );
}
