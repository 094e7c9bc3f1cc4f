import { DEVELOPMENT_KEY_ID, developmentKeyRing, FieldCipher } from '../../services/common/crypto/field-cipher';
import { SERVICE_CATALOG } from '../../services/common/service-catalog';
import { buildWebhooksDomain, type WebhooksDomain } from '../../services/webhooks/composition';
import type { WebhooksDatabase } from '../../services/webhooks/database';
import type { DeliveryQueue, SendResult } from '../../services/webhooks/domain/delivery.service';
import type { DeliverySettings } from '../../services/webhooks/domain/delivery-settings';
import { SecretVault } from '../../services/webhooks/domain/secret-vault';
import { TestClock } from './clock';
import { type DomainHarness, type HarnessOptions, openServiceDatabase } from './domain';
import { LogCapture } from './log-capture';

/** What the webhooks harness's sender was asked to send, and answers with (the next result, the last repeating). */
export interface RecordingSender {
  sent: Array<{ url: string; body: string; headers: Record<string, string> }>;
  results: SendResult[];
}

/**
 * The webhooks domain: deliveries are "sent" by a recording sender (the HTTP tests use a real
 * receiver) and queued to a list (no worker), so a test runs each attempt itself and moves the clock.
 */
export async function startWebhooksDomain(
  options: HarnessOptions & { settings?: Partial<DeliverySettings> } = {},
): Promise<DomainHarness<WebhooksDomain, WebhooksDatabase> & { sender: RecordingSender; queued: string[]; settings: DeliverySettings }> {
  const clock = options.clock ?? new TestClock();
  const logs = new LogCapture();
  const database = await openServiceDatabase<WebhooksDatabase>(SERVICE_CATALOG.webhooks.schema, logs);
  const sender: RecordingSender = { sent: [], results: [{ responseCode: 200, error: null, durationMs: 1 }] };
  const queued: string[] = [];
  const queue: DeliveryQueue = {
    enqueue: async (ids) => void queued.push(...ids),
    requeue: async (id) => void queued.push(id),
  };
  const settings: DeliverySettings = { timeoutMs: 1_000, maxAttempts: 20, backoffMs: 1_000, retryWindowMs: 24 * 3_600_000, production: false, ...options.settings };
  const domain = buildWebhooksDomain({
    db: database.db,
    clock,
    logger: logs.logger('webhooks'),
    vault: new SecretVault(new FieldCipher(developmentKeyRing(), DEVELOPMENT_KEY_ID)),
    send: async (url, body, headers) => {
      sender.sent.push({ url, body, headers });
      return (sender.results.length > 1 ? sender.results.shift() : sender.results[0])!;
    },
    settings,
    queue,
  });
  return { domain, sender, queued, settings, db: database.db, sql: database.sql, databaseUrl: database.url, clock, logs, stop: database.close };
}
