import { FieldCipher } from '../platform/crypto/field-cipher';
import { registerConsumer } from '../platform/outbox/runtime';
import type { ServiceRuntime } from '../platform/service-runtime';
import { deliverySettingsOf, type WebhooksConfig } from './config';
import { buildWebhooksDomain } from './composition';
import type { WebhooksDatabase } from './database';
import { SecretVault } from './domain/secret-vault';
import { createWebhooksGrpcService } from './grpc/webhooks.grpc';
import { BullDeliveryQueue, deliverWebhook, deliverWebhookJob, deliveryRelay } from './jobs/deliver-webhook.job';
import { fanOutConsumer } from './jobs/fan-out.consumer';
import { httpSender } from './jobs/http-sender';

/** The composition root (see manifest.ts): the domain, the fan-out consumer, the delivery job and the gRPC service. */
export async function composeWebhooksService(runtime: ServiceRuntime<WebhooksDatabase>, config: WebhooksConfig) {
  const { db, queues, relay, clock, logger } = runtime;
  if (config.encryption.development) {
    logger.warn(
      'WEBHOOK_SECRET_KEYS is not set: webhook signing secrets are encrypted with the built-in DEVELOPMENT key, which anyone with the source can read. ' +
        'Set WEBHOOK_SECRET_KEYS=<id>:<base64 32 bytes> (openssl rand -base64 32) and WEBHOOK_SECRET_ACTIVE_KEY_ID=<id>.',
    );
  }
  const settings = deliverySettingsOf(config);
  const job = deliverWebhookJob(settings);
  const queue = new BullDeliveryQueue(queues, job);
  const vault = new SecretVault(new FieldCipher(config.encryption.keys, config.encryption.activeKeyId));
  const domain = buildWebhooksDomain({ db, clock, logger, vault, send: httpSender, settings, queue });

  runtime.process(job, deliverWebhook(domain.deliveries), config.WEBHOOK_DELIVERY_CONCURRENCY);
  relay.register(deliveryRelay(job, domain.deliveries));
  // The deliveries an event created are queued once its fan-out committed (the relay queues them otherwise).
  registerConsumer(runtime, fanOutConsumer, 2, async (event) => queue.enqueue(await domain.deliveries.pendingOfEvent(event.id)));

  return createWebhooksGrpcService(domain, logger);
}
