import { DEVELOPMENT_KEY_ID, developmentKeyRing, FieldCipher } from '../../services/platform/crypto/field-cipher';
import { SERVICE_CATALOG } from '../../services/platform/service-catalog';
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

export interface WebhooksHarness extends DomainHarness<WebhooksDomain, WebhooksDatabase> {
  sender: RecordingSender;
  /** The delivery ids queued (no worker reads them). */
  queued: string[];
  settings: DeliverySettings;
  /**
   * Back to how the harness started, for the next test: the service's tables emptied (their
   * migrations kept), nothing sent or queued, the sender answering 200, the clock at its start.
   * Cheaper than a database per test.
   */
  reset(): Promise<void>;
}

const DEFAULT_RESULT: SendResult = { responseCode: 200, error: null, durationMs: 1 };

/**
 * The webhooks domain: deliveries are "sent" by a recording sender (the HTTP tests use a real
 * receiver) and queued to a list (no worker), so a test runs each attempt itself and moves the clock.
 */
export async function startWebhooksDomain(options: HarnessOptions & { settings?: Partial<DeliverySettings> } = {}): Promise<WebhooksHarness> {
  const clock = options.clock ?? new TestClock();
  const start = clock.now();
  const logs = new LogCapture();
  const database = await openServiceDatabase<WebhooksDatabase>(SERVICE_CATALOG.webhooks.schema, logs);
  const sender: RecordingSender = { sent: [], results: [DEFAULT_RESULT] };
  const queued: string[] = [];
  const queue: DeliveryQueue = {
    enqueue: async (ids) => void queued.push(...ids),
    requeue: async (id) => void queued.push(id),
  };
  const settings: DeliverySettings = {
    timeoutMs: 1_000,
    maxAttempts: 20,
    backoffMs: 1_000,
    retryWindowMs: 24 * 3_600_000,
    production: false,
    ...options.settings,
  };
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
  const { schema } = SERVICE_CATALOG.webhooks;
  const reset = async () => {
    const { rows } = await database.sql.query<{ name: string }>(
      "SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname = $1 AND tablename NOT LIKE 'kysely_migration%'",
      [schema],
    );
    await database.sql.query(`TRUNCATE ${rows.map((row) => row.name).join(', ')} RESTART IDENTITY CASCADE`);
    sender.sent.length = 0;
    sender.results = [DEFAULT_RESULT];
    queued.length = 0;
    clock.set(start);
  };
  return {
    domain,
    sender,
    queued,
    settings,
    reset,
    db: database.db,
    sql: database.sql,
    databaseUrl: database.url,
    clock,
    logs,
    stop: database.close,
  };
}
