import type { CreateWebhookResponse, Delivery, Webhook } from '../../../gen/referral/webhooks/v1/webhooks';
import { required, snakeCase } from '../../http/present';
import type { z } from 'zod';
import type { deliverySchema } from './webhooks.schemas';

export function presentWebhook(webhook: Webhook) {
  return snakeCase(webhook, ['createdAt', 'updatedAt']);
}

export function presentCreatedWebhook(created: CreateWebhookResponse) {
  return { ...presentWebhook(required(created.webhook, 'webhook')), secret: created.secret };
}

export function presentDelivery(delivery: Delivery): z.output<typeof deliverySchema> {
  const presented = snakeCase(delivery, ['createdAt']);
  return { ...presented, status: presented.status as z.output<typeof deliverySchema>['status'] };
}
