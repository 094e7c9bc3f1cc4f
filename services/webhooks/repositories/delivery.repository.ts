import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Page } from '../../rules/pagination';
import type { WebhookDeliveryTable, WebhooksDatabase } from '../database';
import type { PublicEvent, PublicEventType } from '../domain/public-events';
import { type PagedRecords, readPage } from '../../platform/db/paged-list';

export type DeliveryRow = Selectable<WebhookDeliveryTable> & { event_type: string };

/** A delivery as its job reads it: the row, and the event it sends. */
export interface DeliveryWork {
  delivery: Selectable<WebhookDeliveryTable>;
  event: PublicEvent;
}

/** What one attempt came to. */
export interface AttemptOutcome {
  attempt: number;
  at: Date;
  responseCode: number | null;
  error: string | null;
  durationMs: number;
  status: 'pending' | 'delivered' | 'failed';
  nextAttemptAt: Date | null;
}

export class DeliveryRepository {
  constructor(private readonly db: Kysely<WebhooksDatabase>) {}

  /** Pending deliveries of an event (to queue them once its fan-out committed). */
  async pendingOfEvent(eventId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('event_id', '=', eventId)
      .where('status', '=', 'pending')
      .execute();
    return rows.map((row) => row.id);
  }

  /** Pending deliveries, oldest first (the relay keeps a job for each). */
  async pending(limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '=', 'pending')
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }

  async work(deliveryId: string): Promise<DeliveryWork | undefined> {
    const row = await this.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
      .selectAll('d')
      .select(['e.project_id as event_project_id', 'e.type as event_type', 'e.data as event_data', 'e.created_at as event_created_at'])
      .where('d.id', '=', deliveryId)
      .executeTakeFirst();
    if (!row) return undefined;
    const { event_project_id, event_type, event_data, event_created_at, ...delivery } = row;
    return {
      delivery,
      event: {
        id: delivery.event_id,
        projectId: event_project_id,
        type: event_type as PublicEventType,
        createdAt: event_created_at,
        data: event_data as Record<string, unknown>,
      },
    };
  }

  /**
   * Logs an attempt and moves the delivery, only while it is pending: an attempt that raced a
   * finished one (a job run twice after a crash) logs nothing and changes nothing. False then.
   */
  async recordAttempt(deliveryId: string, outcome: AttemptOutcome): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('webhook_deliveries')
        .set({
          status: outcome.status,
          attempts: outcome.attempt,
          last_response_code: outcome.responseCode,
          last_error: outcome.error,
          next_attempt_at: outcome.nextAttemptAt,
          delivered_at: outcome.status === 'delivered' ? outcome.at : null,
        })
        .where('id', '=', deliveryId)
        .where('status', '=', 'pending')
        .where('attempts', '=', outcome.attempt - 1)
        .executeTakeFirst();
      if (updated.numUpdatedRows === 0n) return false;
      await trx
        .insertInto('webhook_delivery_attempts')
        .values({
          delivery_id: deliveryId,
          attempt: outcome.attempt,
          attempted_at: outcome.at,
          response_code: outcome.responseCode,
          error: outcome.error,
          duration_ms: outcome.durationMs,
        })
        .execute();
      return true;
    });
  }

  /** Marks a delivery failed without an attempt (given up by the relay, or its endpoint disabled). */
  async fail(deliveryId: string, reason: string): Promise<void> {
    await this.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', last_error: reason, next_attempt_at: null })
      .where('id', '=', deliveryId)
      .where('status', '=', 'pending')
      .execute();
  }

  async list(projectId: string, webhookId: string, page: Page): Promise<PagedRecords<DeliveryRow>> {
    return readPage(
      this.db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
        .where('w.project_id', '=', projectId)
        .where('d.webhook_id', '=', webhookId),
      (matching) =>
        matching
          .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
          .selectAll('d')
          .select('e.type as event_type')
          .orderBy('d.created_at', 'desc')
          .orderBy('d.id', 'desc'),
      page,
    );
  }

  /** Makes a delivery pending again with fresh attempts (attempts keep counting; the log keeps them all). */
  async reopen(projectId: string, webhookId: string, deliveryId: string, now: Date): Promise<DeliveryRow | undefined> {
    const row = await this.db
      .updateTable('webhook_deliveries as d')
      .from('webhooks as w')
      .set((eb) => ({ status: 'pending', next_attempt_at: now, delivered_at: null, retry_from: now, retry_base: eb.ref('d.attempts') }))
      .whereRef('w.id', '=', 'd.webhook_id')
      .where('w.project_id', '=', projectId)
      .where('d.webhook_id', '=', webhookId)
      .where('d.id', '=', deliveryId)
      .returningAll('d')
      .executeTakeFirst();
    if (!row) return undefined;
    const event = await this.db.selectFrom('webhook_events').select('type').where('id', '=', row.event_id).executeTakeFirstOrThrow();
    return { ...row, event_type: event.type };
  }
}

/**
 * The event and one pending delivery per endpoint, in the caller's transaction; a repeat (the
 * same event again) inserts nothing. Returns the ids of the deliveries it created.
 */
export async function createDeliveriesForEvent(
  trx: Kysely<WebhooksDatabase>,
  event: PublicEvent,
  webhookIds: readonly string[],
  now: Date,
): Promise<string[]> {
  if (webhookIds.length === 0) return [];
  await trx
    .insertInto('webhook_events')
    .values({ id: event.id, project_id: event.projectId, type: event.type, data: JSON.stringify(event.data), created_at: event.createdAt })
    .onConflict((conflict) => conflict.column('id').doNothing())
    .execute();
  const rows = await trx
    .insertInto('webhook_deliveries')
    .values(
      webhookIds.map((webhookId) => ({
        id: randomUUID(),
        webhook_id: webhookId,
        event_id: event.id,
        status: 'pending' as const,
        next_attempt_at: now,
        retry_from: now,
        created_at: now,
      })),
    )
    .onConflict((conflict) => conflict.columns(['event_id', 'webhook_id']).doNothing())
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}
