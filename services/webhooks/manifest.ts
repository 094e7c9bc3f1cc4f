import { WebhooksServiceService } from '../../gen/referral/webhooks/v1/webhooks';
import { SERVICE_CATALOG } from '../platform/service-catalog';
import type { ServiceManifest } from '../platform/service-manifest';
import { type WebhooksConfig, webhooksConfigSchema } from './config';
import type { WebhooksDatabase } from './database';
import { DELIVER_WEBHOOK_QUEUE } from './jobs/deliver-webhook.job';
import { fanOutJob } from './jobs/fan-out.consumer';
import { webhooksMigrations } from './migrations';
import { composeWebhooksService } from './server';

/** The webhooks service, declared once (services/platform/service-manifest.ts). */
export const webhooksManifest: ServiceManifest<WebhooksConfig, WebhooksDatabase> = {
  service: SERVICE_CATALOG.webhooks,
  configSchema: webhooksConfigSchema,
  migrations: () => webhooksMigrations,
  grpc: WebhooksServiceService,
  jobs: [{ queue: DELIVER_WEBHOOK_QUEUE }, fanOutJob],
  calls: [],
  compose: composeWebhooksService,
};
