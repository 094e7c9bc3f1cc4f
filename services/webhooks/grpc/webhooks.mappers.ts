import type { Delivery, Webhook } from '../../../gen/referral/webhooks/v1/webhooks';
import type { DeliveryRow } from '../repositories/delivery.repository';
import type { WebhookRow } from '../repositories/webhook.repository';

/** Rows -> protobuf messages (never the secret: WebhookRow has no secret columns). */
export function toWebhookMessage(row: WebhookRow): Webhook {
  return { id: row.id, url: row.url, events: row.events, enabled: row.enabled, createdAt: row.created_at, updatedAt: row.updated_at };
}

export function toDeliveryMessage(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    lastResponseCode: row.last_response_code ?? undefined,
    lastError: row.last_error ?? undefined,
    nextAttemptAt: row.next_attempt_at ?? undefined,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at ?? undefined,
  };
}
