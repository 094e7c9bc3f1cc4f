import type pg from 'pg';
import { EVENT_CONSUMER_LIST } from '../../services/platform/events/consumers';
import { SERVICE_CATALOG } from '../../services/platform/service-catalog';
import type { TestProject } from './fixtures';
import type { Api } from './http';
import { pollUntil } from './poll';

type Producer = 'audience' | 'tax';

/** The agency's consumers of one producer's events (its projections), with those event types. */
function projectionsOf(producer: Producer) {
  return EVENT_CONSUMER_LIST.filter((consumer) => consumer.service === 'agency')
    .map((consumer) => ({ name: consumer.name, types: consumer.eventTypes.filter((type) => type.startsWith(`${producer}.`)) }))
    .filter((consumer) => consumer.types.length > 0);
}

/**
 * Waits until the agency's projections have applied every event of `producer` written so far, in
 * a stack whose relay and workers run (eventually consistent).
 */
async function producerEventsProjected(stack: { db: pg.Pool }, producer: Producer, timeoutMs: number): Promise<void> {
  const { source, agency } = { source: SERVICE_CATALOG[producer].schema, agency: SERVICE_CATALOG.agency.schema };
  const projections = projectionsOf(producer);
  await pollUntil(
    async () => {
      let pending = 0;
      for (const consumer of projections) {
        const { rows } = await stack.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${source}.outbox o
           WHERE o.type = ANY($1) AND NOT EXISTS (SELECT 1 FROM ${agency}.processed_events p WHERE p.consumer = $2 AND p.event_id = o.id)`,
          [consumer.types, consumer.name],
        );
        pending += rows[0]!.n;
      }
      return pending === 0;
    },
    { timeoutMs, intervalMs: 50, what: `the agency to apply the ${producer} events written so far` },
  );
}

/** What a test does before it reads a tier or a membership the agency answers from its audience projections. */
export async function audienceEventsProjected(stack: { db: pg.Pool }, timeoutMs = 15_000): Promise<void> {
  await producerEventsProjected(stack, 'audience', timeoutMs);
}

/** What a test does before it reads the affiliate list's tax_status (the agency's projection of tax statuses and settings). */
export async function taxEventsProjected(stack: { db: pg.Pool }, timeoutMs = 15_000): Promise<void> {
  await producerEventsProjected(stack, 'tax', timeoutMs);
}

/**
 * Waits until the affiliate list, searched for `name`, shows that affiliate with `conversions` conversions: the
 * metrics projection has applied them (its consumer runs after the conversions settle).
 */
export async function affiliateConversionsProjected(stack: { api: Api }, project: TestProject, name: string, conversions: number): Promise<void> {
  await pollUntil(
    async () => {
      const response = await stack.api.get(`/api/v1/projects/${project.id}/affiliates?q=${encodeURIComponent(name)}`, { key: project.keys.admin });
      return response.body.results?.[0]?.conversions === conversions;
    },
    { timeoutMs: 15_000, intervalMs: 50, what: `the projection to hold ${name}’s ${conversions} conversions` },
  );
}
