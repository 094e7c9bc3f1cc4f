import { listBody, pageRequest } from '../../http/list';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { presentCreatedWebhook, presentDelivery, presentWebhook } from './webhooks.presenters';
import {
  createdWebhookSchema,
  createWebhookBody,
  deliveryListSchema,
  deliverySchema,
  listQuery,
  updateWebhookBody,
  webhookListSchema,
  webhookSchema,
} from './webhooks.schemas';
import { projectAdmin, projectReader } from '../route-access';

const tags = ['Webhooks'];

const DELIVERY =
  'Each event is POSTed as `{ id, type, created_at, data }` with the Standard Webhooks headers `webhook-id` (the event’s id, the same on every ' +
  'attempt), `webhook-timestamp` (unix seconds) and `webhook-signature` (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the ' +
  'base64-decoded secret after `whsec_`). Any answer but a 2xx within the timeout is retried with exponential backoff and jitter for 24 hours.';

/** Project webhook endpoints and their delivery log (admin keys; read_only keys may read). */
export function webhookRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/webhooks',
        operationId: 'createWebhook',
        summary: 'Create a webhook endpoint',
        description: `${DELIVERY} The answer carries the signing \`secret\`, shown this once.`,
        tags,
        auth: projectAdmin,
        body: createWebhookBody,
        responses: {
          201: { description: 'The endpoint, with its signing secret', schema: createdWebhookSchema },
          400: { description: 'INVALID_WEBHOOK: the URL or an event name is refused' },
          429: { description: 'WEBHOOK_LIMIT_REACHED' },
        },
      },
      async ({ body, caller }) => ({
        status: 201,
        body: presentCreatedWebhook(
          await clients.webhooks.createWebhook({ projectId: caller.projectId, url: body.url, events: body.events, enabled: body.enabled }),
        ),
      }),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/webhooks',
        operationId: 'listWebhooks',
        summary: 'The project’s webhook endpoints, oldest first (without secrets)',
        tags,
        auth: projectReader,
        query: listQuery,
        responses: { 200: { description: 'A page of endpoints', schema: webhookListSchema } },
      },
      async ({ query, caller }) => ({
        status: 200,
        body: listBody(await clients.webhooks.listWebhooks({ projectId: caller.projectId, page: pageRequest(query) }), presentWebhook),
      }),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/webhooks/:webhookId',
        operationId: 'getWebhook',
        summary: 'One webhook endpoint (without its secret)',
        tags,
        auth: projectReader,
        responses: { 200: { description: 'The endpoint', schema: webhookSchema }, 404: { description: 'WEBHOOK_NOT_FOUND' } },
      },
      async ({ params, caller }) => ({
        status: 200,
        body: presentWebhook(await clients.webhooks.getWebhook({ projectId: caller.projectId, webhookId: params.webhookId })),
      }),
    ),
    defineRoute(
      {
        method: 'patch',
        path: '/api/v1/projects/:projectId/webhooks/:webhookId',
        operationId: 'updateWebhook',
        summary: 'Change a webhook endpoint',
        description:
          'Only the fields present change; `events` replaces the list. Disabling it fails its pending deliveries at their next attempt (resend them later).',
        tags,
        auth: projectAdmin,
        body: updateWebhookBody,
        responses: {
          200: { description: 'The endpoint', schema: webhookSchema },
          400: { description: 'INVALID_WEBHOOK' },
          404: { description: 'WEBHOOK_NOT_FOUND' },
        },
      },
      async ({ params, body, caller }) => ({
        status: 200,
        body: presentWebhook(
          await clients.webhooks.updateWebhook({
            projectId: caller.projectId,
            webhookId: params.webhookId,
            url: body.url,
            events: body.events ?? [],
            setEvents: body.events !== undefined,
            enabled: body.enabled,
          }),
        ),
      }),
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/api/v1/projects/:projectId/webhooks/:webhookId',
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook endpoint and its delivery log',
        tags,
        auth: projectAdmin,
        responses: { 204: { description: 'Deleted' }, 404: { description: 'WEBHOOK_NOT_FOUND' } },
      },
      async ({ params, caller }) => {
        await clients.webhooks.deleteWebhook({ projectId: caller.projectId, webhookId: params.webhookId });
        return { status: 204 };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/webhooks/:webhookId/deliveries',
        operationId: 'listWebhookDeliveries',
        summary: 'The endpoint’s delivery log, newest first',
        description:
          'One delivery per event sent to this endpoint: its status, attempts, the last response code and, while pending, the next attempt.',
        tags,
        auth: projectReader,
        query: listQuery,
        responses: { 200: { description: 'A page of deliveries', schema: deliveryListSchema }, 404: { description: 'WEBHOOK_NOT_FOUND' } },
      },
      async ({ params, query, caller }) => ({
        status: 200,
        body: listBody(
          await clients.webhooks.listDeliveries({ projectId: caller.projectId, webhookId: params.webhookId, page: pageRequest(query) }),
          presentDelivery,
        ),
      }),
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/webhooks/:webhookId/deliveries/:deliveryId/resend',
        operationId: 'resendWebhookDelivery',
        summary: 'Send a delivery again',
        description:
          'The same event (same `webhook-id` and body), with a fresh retry window; it goes at once. Any delivery may be resent, delivered or failed.',
        tags,
        auth: projectAdmin,
        responses: {
          202: { description: 'The delivery, pending again', schema: deliverySchema },
          404: { description: 'WEBHOOK_NOT_FOUND or WEBHOOK_DELIVERY_NOT_FOUND' },
        },
      },
      async ({ params, caller }) => ({
        status: 202,
        body: presentDelivery(
          await clients.webhooks.resendDelivery({ projectId: caller.projectId, webhookId: params.webhookId, deliveryId: params.deliveryId }),
        ),
      }),
    ),
  ];
}
