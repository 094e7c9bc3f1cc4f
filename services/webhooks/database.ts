import type { ColumnType, Generated } from 'kysely';
import type { OutboxTables } from '../platform/outbox/tables';

/** The webhooks schema, as Kysely sees it. Migrations in ./migrations are the source of truth. */
export interface WebhooksDatabase extends OutboxTables {
  webhooks: WebhookTable;
  webhook_events: WebhookEventTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptTable;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookTable {
  id: string;
  project_id: string;
  url: string;
  events: string[];
  enabled: boolean;
  secret_key_id: string;
  secret_iv: Buffer;
  secret_ciphertext: Buffer;
  secret_auth_tag: Buffer;
  created_at: Date;
  updated_at: Date;
}

export interface WebhookEventTable {
  id: string;
  project_id: string;
  /** The public type (conversion.processed, ...). */
  type: string;
  /** jsonb; written as JSON text. */
  data: ColumnType<unknown, string, never>;
  created_at: Date;
}

export interface WebhookDeliveryTable {
  id: string;
  webhook_id: string;
  event_id: string;
  status: DeliveryStatus;
  attempts: ColumnType<number, number | undefined, number>;
  last_response_code: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  /** Retries run from here (created, or resent), for the retry window. */
  retry_from: Date;
  /** Attempts made before retry_from: the attempts allowed count from it. */
  retry_base: ColumnType<number, number | undefined, number>;
  created_at: Date;
  delivered_at: Date | null;
}

export interface WebhookDeliveryAttemptTable {
  id: Generated<string>;
  delivery_id: string;
  attempt: number;
  attempted_at: Date;
  response_code: number | null;
  error: string | null;
  duration_ms: number;
}
