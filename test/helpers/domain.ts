import type { Kysely } from 'kysely';
import pg from 'pg';
import { type Database, openDatabase } from '../../services/common/db/database';
import { FieldCipher, parseKeyRing } from '../../services/common/crypto/field-cipher';
import { OutboxRelay } from '../../services/common/outbox/relay';
import { QueueKit } from '../../services/common/queue';
import { SERVICE_CATALOG } from '../../services/common/service-catalog';
import { type AudienceDomain, buildAudienceDomain } from '../../services/audience/composition';
import type { AudienceDatabase } from '../../services/audience/database';
import { BullEntryBatchScheduler } from '../../services/audience/jobs/entry-batch-scheduler';
import { BullEvaluationScheduler } from '../../services/audience/jobs/evaluate-segment.job';
import { buildTaxDomain, type TaxDomain } from '../../services/tax/composition';
import type { TaxDatabase } from '../../services/tax/database';
import { TinVault } from '../../services/tax/domain/tin-vault';
import { DEVELOPMENT_SIGNER_KEY } from '../../services/claim/chain/chain-config';
import { claimManagerReader } from '../../services/claim/chain/claim-manager-reader';
import { VoucherSigner } from '../../services/claim/chain/voucher-signer';
import { buildClaimDomain, type ClaimCheckDeps, type ClaimDomain } from '../../services/claim/composition';
import { ChainDirectory } from '../../services/claim/domain/chains';
import type { ClaimDatabase } from '../../services/claim/database';
import { buildWebhooksDomain, type WebhooksDomain } from '../../services/webhooks/composition';
import type { WebhooksDatabase } from '../../services/webhooks/database';
import type { DeliveryQueue, SendResult } from '../../services/webhooks/domain/delivery.service';
import type { DeliverySettings } from '../../services/webhooks/domain/delivery-settings';
import { SecretVault } from '../../services/webhooks/domain/secret-vault';
import { DEVELOPMENT_KEY_ID, developmentKeyRing } from '../../services/common/crypto/field-cipher';
import { TEST_REDIS_URL } from '../setup/test-env';
import { TestClock } from './clock';
import { FakeAgency } from './fakes/agency';
import { FakeAudiences } from './fakes/audience';
import { RecordingConversionScheduler } from './fakes/conversion-scheduler';
import { FakeTaxStatuses } from './fakes/tax';
import { LogCapture } from './log-capture';
import { TEST_TAX_KEYS } from './tax-keys';
import { createTestDatabase, deleteKeys, newQueuePrefix } from './test-database';

/**
 * The medium tier (test/medium): a service's domain, built by the same composition function its
 * server.ts uses, with its real repositories on a database cloned from the run's migrated template
 * and the test clock. No gRPC, no HTTP: many-case rules are tested here, fast; what crosses a
 * boundary (status codes, bodies, auth) stays in the HTTP tests.
 */
export interface DomainHarness<D, DB> {
  domain: D;
  /** The service's own schema, through Kysely, as its repositories see it. */
  db: Kysely<DB>;
  /** The whole test database (every schema), to check what was (not) written. */
  sql: pg.Pool;
  /** The test database's URL, for a test that needs connections of its own. */
  databaseUrl: string;
  clock: TestClock;
  logs: LogCapture;
  stop(): Promise<void>;
}

interface HarnessOptions {
  clock?: TestClock;
}

async function openServiceDatabase<DB>(schema: string, logs: LogCapture) {
  const database = await createTestDatabase();
  const opened: Database<DB> = openDatabase<DB>({ url: database.url, schema, poolMax: 4, applicationName: 'test-medium', logger: logs.logger('db') });
  const sql = new pg.Pool({ connectionString: database.url, max: 2 });
  // Dropping the database at stop() ends this pool's connections: not an error of the next test.
  sql.on('error', () => undefined);
  return {
    db: opened.db,
    sql,
    url: database.url,
    close: async () => {
      await opened.close();
      await sql.end();
      await database.drop();
    },
  };
}

/**
 * The audience domain. Batches are scheduled on a real queue (a Redis key prefix of their own) that
 * no worker reads: a test applies a stored batch itself with `domain.batches.apply(id)`, the
 * worker's step, and so decides when it happens. Events stay in the outbox until a test relays them
 * (`outbox.pass()`): the relay is not started, so the domain's wake-ups do nothing.
 */
export async function startAudienceDomain(
  options: HarnessOptions = {},
): Promise<DomainHarness<AudienceDomain, AudienceDatabase> & { outbox: OutboxRelay<AudienceDatabase>; queues: QueueKit }> {
  const clock = options.clock ?? new TestClock();
  const logs = new LogCapture();
  const database = await openServiceDatabase<AudienceDatabase>(SERVICE_CATALOG.audience.schema, logs);
  const prefix = newQueuePrefix();
  const queues = new QueueKit({ redisUrl: TEST_REDIS_URL, prefix, logger: logs.logger('queue') });
  await queues.ready();
  const logger = logs.logger('audience');
  const outbox = new OutboxRelay(database.db, queues, { service: 'audience', clock, logger: logs.logger('outbox'), batchSize: 200, retentionMs: 168 * 3_600_000 });
  const domain = buildAudienceDomain({
    db: database.db,
    clock,
    logger,
    scheduler: new BullEntryBatchScheduler(queues),
    evaluationScheduler: new BullEvaluationScheduler(queues),
    outbox,
    // The drainer is not started (no relay): a test matches pending users with domain.matching (onStart, then pass).
    matchingDebounceMs: 0,
  });
  return {
    domain,
    outbox,
    queues,
    db: database.db,
    sql: database.sql,
    databaseUrl: database.url,
    clock,
    logs,
    stop: async () => {
      await queues.close();
      await deleteKeys(TEST_REDIS_URL, `${prefix}:*`);
      await database.close();
    },
  };
}

/** A vault sealing tax ids with the test key ring (the same as the HTTP tests' stack). */
export function testTinVault(): TinVault {
  const ring = parseKeyRing(TEST_TAX_KEYS.spec);
  if ('problem' in ring) throw new Error(`the test key ring is invalid: ${ring.problem}`);
  return new TinVault(new FieldCipher(ring.keys, TEST_TAX_KEYS.active));
}

/** The tax domain, sealing tax ids with the test key ring (the same as the HTTP tests' stack). */
export async function startTaxDomain(options: HarnessOptions = {}): Promise<DomainHarness<TaxDomain, TaxDatabase> & { vault: TinVault }> {
  const clock = options.clock ?? new TestClock();
  const logs = new LogCapture();
  const database = await openServiceDatabase<TaxDatabase>(SERVICE_CATALOG.tax.schema, logs);
  const vault = testTinVault();
  const domain = buildTaxDomain({ db: database.db, clock, logger: logs.logger('tax'), vault });
  return { domain, vault, db: database.db, sql: database.sql, databaseUrl: database.url, clock, logs, stop: database.close };
}

/** The agency domain beside the audience domain it asks (test/helpers/agency-domain.ts). */
export { startAgencyDomain } from './agency-domain';

export interface ClaimHarness extends DomainHarness<ClaimDomain, ClaimDatabase> {
  /** The agency service the domain asks for attribution, in memory: a test creates affiliates, referrals, masters and tiers in it. */
  agency: FakeAgency;
  /** The audience service the domain asks for allowlists, in memory: audiences, members, and the calls made (`calls`). */
  audiences: FakeAudiences;
  /** The tax service the tax gate asks, in memory: which projects require tax information and where each user's form stands. */
  taxStatuses: FakeTaxStatuses;
  /** The batches the domain scheduled (no worker reads them). */
  scheduler: RecordingConversionScheduler;
  /** Pays every stored batch not finished yet, as the job would (domain.payouts.payBatch), oldest first. */
  payAll(): Promise<void>;
  /** The same domain as another process would build it: its own connections (closed at stop), the same other services. */
  anotherProcess(): ClaimDomain;
}

export interface ClaimHarnessOptions extends HarnessOptions {
  /** The claim-check half's parts; by default the development signer, no chains, a 7-day TTL and the fake tax service. */
  checks?: Partial<ClaimCheckDeps>;
}

/**
 * The claim domain with its real repositories on a test database, and in-memory fakes of the
 * services it asks (test/helpers/fakes): the agency for attribution, the audience for allowlists,
 * the tax service for the tax gate, and a scheduler no worker reads. No transport: a test pays a
 * stored batch itself with `domain.payouts.payBatch(id)` (or `payAll`), the job's step; events stay
 * in the outbox, where tests read them. The real services behind these ports run in the HTTP and
 * fault tests.
 */
export async function startClaimDomain(options: ClaimHarnessOptions = {}): Promise<ClaimHarness> {
  const clock = options.clock ?? new TestClock();
  const logs = new LogCapture();
  const database = await openServiceDatabase<ClaimDatabase>(SERVICE_CATALOG.claim.schema, logs);
  const agency = new FakeAgency(clock);
  const audiences = new FakeAudiences();
  const taxStatuses = new FakeTaxStatuses(clock);
  const scheduler = new RecordingConversionScheduler();
  const logger = logs.logger('claim');
  const others: Array<() => Promise<void>> = [];
  // Events stay in the outbox (no relay runs here): tests read them there.
  const outbox = { wake: () => undefined };
  const checks: ClaimCheckDeps = {
    signer: await VoucherSigner.fromPrivateKeys([DEVELOPMENT_SIGNER_KEY]),
    chains: new ChainDirectory([], 'Referral ClaimManager', '1'),
    ttlSeconds: 7 * 86_400,
    taxStatus: taxStatuses,
    readerOf: (chain) => claimManagerReader(chain),
    watcher: { blockRange: 2_000, maxRangesPerRun: 50, expiryBatch: 200 },
    ...options.checks,
  };
  const build = (db: Kysely<ClaimDatabase>) =>
    buildClaimDomain({ db, clock, logger, scheduler, attribution: agency, allowlists: audiences, outbox, checks });
  const domain = build(database.db);
  return {
    domain,
    db: database.db,
    sql: database.sql,
    databaseUrl: database.url,
    clock,
    logs,
    agency,
    audiences,
    taxStatuses,
    scheduler,
    payAll: async () => {
      for (const batchId of await domain.payouts.unfinished(1_000)) await domain.payouts.payBatch(batchId);
    },
    anotherProcess: () => {
      const opened = openDatabase<ClaimDatabase>({ url: database.url, schema: SERVICE_CATALOG.claim.schema, poolMax: 2, applicationName: 'test-medium-other', logger });
      others.push(() => opened.close());
      return build(opened.db);
    },
    stop: async () => {
      for (const close of others.splice(0)) await close();
      await database.close();
    },
  };
}

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
