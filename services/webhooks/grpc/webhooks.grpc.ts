import type { WebhooksServiceServer } from '../../../gen/referral/webhooks/v1/webhooks';
import { requireText } from '../../rules/fields';
import { implementService } from '../../platform/grpc/service';
import type { Logger } from '../../platform/logger';
import { toPage } from '../../rules/pagination';
import type { WebhooksDomain } from '../composition';
import { toDeliveryMessage, toWebhookMessage } from './webhooks.mappers';

/** Translates protobuf <-> domain and delegates; no rules live here. */
export function createWebhooksGrpcService(domain: WebhooksDomain, logger: Logger): WebhooksServiceServer {
  return implementService<WebhooksServiceServer>(
    'WebhooksService',
    {
      createWebhook: async (req) => {
        const { webhook, secret } = await domain.webhooks.create(req.projectId, { url: req.url, events: req.events, enabled: req.enabled });
        return { webhook: toWebhookMessage(webhook), secret };
      },
      getWebhook: async (req) => toWebhookMessage(await domain.webhooks.get(req.projectId, requireText(req.webhookId, 'webhook_id'))),
      listWebhooks: async (req) => {
        const page = await domain.webhooks.list(req.projectId, toPage(req.page));
        return { results: page.results.map(toWebhookMessage), pageInfo: page.pageInfo };
      },
      updateWebhook: async (req) =>
        toWebhookMessage(
          await domain.webhooks.update(req.projectId, requireText(req.webhookId, 'webhook_id'), {
            url: req.url,
            events: req.setEvents ? req.events : undefined,
            enabled: req.enabled,
          }),
        ),
      deleteWebhook: async (req) => {
        await domain.webhooks.delete(req.projectId, requireText(req.webhookId, 'webhook_id'));
        return {};
      },
      listDeliveries: async (req) => {
        const page = await domain.deliveries.list(req.projectId, requireText(req.webhookId, 'webhook_id'), toPage(req.page));
        return { results: page.results.map(toDeliveryMessage), pageInfo: page.pageInfo };
      },
      resendDelivery: async (req) =>
        toDeliveryMessage(
          await domain.deliveries.resend(
            req.projectId,
            requireText(req.webhookId, 'webhook_id'),
            requireText(req.deliveryId, 'delivery_id'),
            domain.queue,
          ),
        ),
    },
    logger,
  );
}
