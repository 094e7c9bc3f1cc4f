import { z } from 'zod';
import { PUBLIC_EVENT_TYPES } from '../../../services/platform/events/public-event-types';
import { listSchema, pageQuery } from '../../http/list';

/**
 * HTTP shapes of the webhooks API (snake_case); the gRPC contract is in proto/referral/webhooks. The
 * service checks the URL and the event names (a 400 naming the field); these are sanity bounds.
 */
const timestamp = z.string().describe('ISO-8601 UTC');

// Documented as the items' enum, so clients (the web app's multi-select) get them as a type; the
// service, not this schema, refuses an unknown name, with a 400 naming it.
const EVENTS_DESCRIPTION = `Public event types: ${PUBLIC_EVENT_TYPES.join(', ')}.`;

const url = z.string().min(1).max(2_048).describe('https URL; plain http only to localhost, 127.0.0.1 or [::1], and not in production');
const events = z
  .array(
    z
      .string()
      .min(1)
      .max(100)
      .meta({ enum: [...PUBLIC_EVENT_TYPES] }),
  )
  .min(1)
  .max(20)
  .describe(EVENTS_DESCRIPTION);

export const createWebhookBody = z.strictObject({
  url,
  events,
  enabled: z.boolean().optional().describe('Default true'),
});

/** Only the fields present change (an empty body changes nothing). */
export const updateWebhookBody = z.strictObject({ url: url.optional(), events: events.optional(), enabled: z.boolean().optional() });

export const webhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const createdWebhookSchema = webhookSchema.extend({
  secret: z.string().describe('whsec_ + base64 key, for verifying signatures. Shown only in this answer: store it now.'),
});

export const webhookListSchema = listSchema(webhookSchema);

export const deliverySchema = z.object({
  id: z.string(),
  webhook_id: z.string(),
  event_id: z.string().describe('The event’s id: the `webhook-id` header of every attempt'),
  event_type: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  last_response_code: z.number().int().nullable().describe('null when no answer came (timeout, connection refused)'),
  last_error: z.string().nullable(),
  next_attempt_at: timestamp.nullable().describe('While pending: the latest moment of the next attempt (backoff has jitter, so it may come sooner)'),
  created_at: timestamp,
  delivered_at: timestamp.nullable(),
});

export const deliveryListSchema = listSchema(deliverySchema);

export const listQuery = z.object(pageQuery);
