import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AgencyDatabase } from '../../services/agency/database';
import type { IdentifierType } from '../../services/rules/identifiers';

/** One event of a test batch, as the ingest stores it (tracking_events). */
export interface TestTrackingEvent {
  name: string;
  trackingId: string;
  user?: { identifier: string; identifierType: IdentifierType };
  signatureVerified?: boolean;
  referrer?: string;
  args?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

/**
 * Stores one batch of tracking events the way POST /api/v1/events does (a tracking_event_batches row
 * and its events, in one transaction), so the processing can be tested on its own. Stands in for
 * the ingest's repository until that is the one tests use. Answers the batch id and the event ids,
 * in the order given.
 */
export async function insertTrackingBatch(
  db: Kysely<AgencyDatabase>,
  projectId: string,
  receivedAt: Date,
  events: readonly TestTrackingEvent[],
): Promise<{ batchId: string; eventIds: string[] }> {
  const batchId = randomUUID();
  const eventIds = events.map(() => randomUUID());
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('tracking_event_batches')
      .values({ id: batchId, project_id: projectId, received_at: receivedAt, event_count: events.length })
      .execute();
    await trx
      .insertInto('tracking_events')
      .values(
        events.map((event, n) => ({
          id: eventIds[n]!,
          project_id: projectId,
          batch_id: batchId,
          received_at: receivedAt,
          name: event.name,
          tracking_id: event.trackingId,
          identifier_type: event.user?.identifierType ?? null,
          identifier: event.user?.identifier ?? null,
          signature_verified: event.signatureVerified ?? false,
          referrer: event.referrer ?? null,
          dedup_id: null,
          args: JSON.stringify(event.args ?? {}),
          metadata: JSON.stringify({ tracking_id: event.trackingId, ...(event.referrer ? { referrer: event.referrer } : {}), ...event.metadata }),
        })),
      )
      .execute();
  });
  return { batchId, eventIds };
}

/** A pageview that came through `code` (the SDK's sendPageview with ?af=code). */
export const pageview = (trackingId: string, code?: string): TestTrackingEvent => ({ name: 'pageview', trackingId, referrer: code });

/** A connect_wallet (the SDK's identifyUser), verified unless told otherwise. */
export const connectWallet = (
  trackingId: string,
  user: { identifier: string; identifierType: IdentifierType },
  signatureVerified = true,
): TestTrackingEvent => ({ name: 'connect_wallet', trackingId, user, signatureVerified });
