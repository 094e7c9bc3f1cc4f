import { type Kysely, type Selectable, sql } from 'kysely';
import type { SealedValue } from '../../platform/crypto/field-cipher';
import type { Page } from '../../rules/pagination';
import type { WebhooksDatabase, WebhookTable } from '../database';
import { type PagedRecords, readPage } from '../../platform/db/paged-list';

export type WebhookRow = Omit<Selectable<WebhookTable>, 'secret_key_id' | 'secret_iv' | 'secret_ciphertext' | 'secret_auth_tag'>;

/** What an endpoint needs to receive a delivery: where, and its sealed secret. */
export interface WebhookTarget {
  id: string;
  url: string;
  enabled: boolean;
  sealed: SealedValue;
}

const PUBLIC_COLUMNS = ['id', 'project_id', 'url', 'events', 'enabled', 'created_at', 'updated_at'] as const;

export class WebhookRepository {
  constructor(private readonly db: Kysely<WebhooksDatabase>) {}

  async insert(row: WebhookRow, sealed: SealedValue): Promise<WebhookRow> {
    return this.db
      .insertInto('webhooks')
      .values({ ...row, secret_key_id: sealed.keyId, secret_iv: sealed.iv, secret_ciphertext: sealed.ciphertext, secret_auth_tag: sealed.authTag })
      .returning(PUBLIC_COLUMNS)
      .executeTakeFirstOrThrow();
  }

  async find(projectId: string, id: string): Promise<WebhookRow | undefined> {
    return this.db.selectFrom('webhooks').select(PUBLIC_COLUMNS).where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  }

  async list(projectId: string, page: Page): Promise<PagedRecords<WebhookRow>> {
    return readPage(
      this.db.selectFrom('webhooks').where('project_id', '=', projectId),
      (matching) => matching.select(PUBLIC_COLUMNS).orderBy('created_at').orderBy('id'),
      page,
    );
  }

  async update(
    projectId: string,
    id: string,
    changes: Partial<Pick<WebhookRow, 'url' | 'events' | 'enabled'>>,
    now: Date,
  ): Promise<WebhookRow | undefined> {
    return this.db
      .updateTable('webhooks')
      .set({ ...changes, updated_at: now })
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .returning(PUBLIC_COLUMNS)
      .executeTakeFirst();
  }

  /** Deletes the endpoint and its delivery log (pending deliveries with it: their jobs find nothing). */
  async delete(projectId: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('webhooks').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async target(id: string): Promise<WebhookTarget | undefined> {
    const row = await this.db
      .selectFrom('webhooks')
      .select(['id', 'url', 'enabled', 'secret_key_id', 'secret_iv', 'secret_ciphertext', 'secret_auth_tag'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      id: row.id,
      url: row.url,
      enabled: row.enabled,
      sealed: { keyId: row.secret_key_id, iv: row.secret_iv, ciphertext: row.secret_ciphertext, authTag: row.secret_auth_tag },
    };
  }
}

/** The project's enabled endpoints subscribed to a public event type (in the caller's transaction). */
export async function subscribedWebhookIds(db: Kysely<WebhooksDatabase>, projectId: string, type: string): Promise<string[]> {
  const rows = await db
    .selectFrom('webhooks')
    .select('id')
    .where('project_id', '=', projectId)
    .where('enabled', '=', true)
    .where(sql<boolean>`${type} = ANY(events)`)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Records the event as handled by `consumer`, in ONE statement, when the project has no enabled
 * endpoint subscribed to its public type: true. False when an endpoint subscribes (the fan-out has
 * work to do) or the event is recorded already (a duplicate): the caller goes the usual way.
 * Most conversions of most projects go to no endpoint; this keeps them to one indexed lookup and
 * one insert, with no transaction around them.
 */
export async function recordIfUnsubscribed(
  db: Kysely<WebhooksDatabase>,
  consumer: string,
  event: { id: string; type: string; projectId: string },
  publicType: string,
  now: Date,
): Promise<boolean> {
  // Raw: an INSERT ... SELECT guarded by NOT EXISTS, whose parameters need their column types spelt out.
  const { rows } = await sql<{ event_id: string }>`
    INSERT INTO processed_events (consumer, event_id, event_type, outcome, note, processed_at)
    SELECT ${consumer}::text, ${event.id}::uuid, ${event.type}::text, 'handled', NULL, ${now}::timestamptz
    WHERE NOT EXISTS (
      SELECT 1 FROM webhooks WHERE project_id = ${event.projectId}::uuid AND enabled AND ${publicType}::text = ANY(events)
    )
    ON CONFLICT (consumer, event_id) DO UPDATE SET outcome = 'handled', note = NULL, processed_at = excluded.processed_at
      WHERE processed_events.outcome = 'failed'
    RETURNING event_id`.execute(db);
  return rows.length > 0;
}

/**
 * recordIfUnsubscribed for many events in ONE statement: records as handled each event whose
 * project has no enabled endpoint subscribed to its public name; answers the ids it recorded.
 * The event ids must be distinct.
 */
export async function recordAllUnsubscribed(
  db: Kysely<WebhooksDatabase>,
  consumer: string,
  events: ReadonlyArray<{ id: string; type: string; projectId: string; publicType: string }>,
  now: Date,
): Promise<Set<string>> {
  if (events.length === 0) return new Set();
  // Raw: INSERT ... SELECT over unnest'ed arrays, guarded per row by NOT EXISTS.
  const { rows } = await sql<{ event_id: string }>`
    INSERT INTO processed_events (consumer, event_id, event_type, outcome, note, processed_at)
    SELECT ${consumer}::text, e.id, e.type, 'handled', NULL, ${now}::timestamptz
    FROM unnest(${events.map((e) => e.id)}::uuid[], ${events.map((e) => e.type)}::text[], ${events.map((e) => e.projectId)}::uuid[], ${events.map((e) => e.publicType)}::text[])
      AS e(id, type, project_id, public_type)
    WHERE NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.project_id = e.project_id AND w.enabled AND e.public_type = ANY(w.events))
    ORDER BY e.id
    ON CONFLICT (consumer, event_id) DO UPDATE SET outcome = 'handled', note = NULL, processed_at = excluded.processed_at
      WHERE processed_events.outcome = 'failed'
    RETURNING event_id`.execute(db);
  return new Set(rows.map((row) => row.event_id));
}
