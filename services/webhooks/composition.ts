import type { Kysely } from 'kysely';
import type { Clock } from '../platform/clock';
import type { Logger } from '../platform/logger';
import type { WebhooksDatabase } from './database';
import { type DeliveryQueue, DeliveryService, type Sender } from './domain/delivery.service';
import type { DeliverySettings } from './domain/delivery-settings';
import type { SecretVault } from './domain/secret-vault';
import { WebhookService } from './domain/webhook.service';
import { DeliveryRepository } from './repositories/delivery.repository';
import { WebhookRepository } from './repositories/webhook.repository';

/** The webhooks service's rules, each with its real repositories. */
export interface WebhooksDomain {
  webhooks: WebhookService;
  deliveries: DeliveryService;
  queue: DeliveryQueue;
}

export interface WebhooksDomainDeps {
  db: Kysely<WebhooksDatabase>;
  clock: Clock;
  logger: Logger;
  vault: SecretVault;
  send: Sender;
  settings: DeliverySettings;
  queue: DeliveryQueue;
}

/** Plain constructors, wired once: server.ts and the medium tests (test/medium/webhooks) build the same domain. */
export function buildWebhooksDomain({ db, clock, logger, vault, send, settings, queue }: WebhooksDomainDeps): WebhooksDomain {
  const webhooks = new WebhookRepository(db);
  const deliveries = new DeliveryRepository(db);
  return {
    webhooks: new WebhookService(webhooks, vault, clock, settings.production),
    deliveries: new DeliveryService(deliveries, webhooks, vault, send, settings, clock, logger),
    queue,
  };
}
