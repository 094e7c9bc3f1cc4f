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
import { AgencyServiceClient } from '../../gen/referral/agency/v1/agency';
import { AudienceServiceClient } from '../../gen/referral/audience/v1/audience';
import type { AgencyDatabase } from '../../services/agency/database';
import { agencyManifest } from '../../services/agency/manifest';
import { audienceManifest } from '../../services/audience/manifest';
import { DEVELOPMENT_SIGNER_KEY } from '../../services/claim/chain/chain-config';
import { claimManagerReader } from '../../services/claim/chain/claim-manager-reader';
import { VoucherSigner } from '../../services/claim/chain/voucher-signer';
import { buildClaimDomain, type ClaimCheckDeps, type ClaimDomain } from '../../services/claim/composition';
import { ChainDirectory } from '../../services/claim/domain/chains';
import { TaxServiceClient } from '../../gen/referral/tax/v1/tax';
import { taxManifest } from '../../services/tax/manifest';
import type { ClaimDatabase } from '../../services/claim/database';
import { connectClaimDependencies } from '../../services/claim/grpc/outbound-clients';
import type { AllowlistSource } from '../../services/claim/domain/allowlists';
import { BullConversionScheduler } from '../../services/claim/jobs/conversion-scheduler';
import { loadConfig } from '../../services/common/config';
import { createGrpcClient, type GrpcClient } from '../../services/common/grpc/client';
import { startService } from '../../services/common/service-manifest';
import { buildWebhooksDomain, type WebhooksDomain } from '../../services/webhooks/composition';
import type { WebhooksDatabase } from '../../services/webhooks/database';
import type { DeliveryQueue, SendResult } from '../../services/webhooks/domain/delivery.service';
import type { DeliverySettings } from '../../services/webhooks/domain/delivery-settings';
import { SecretVault } from '../../services/webhooks/domain/secret-vault';
import { DEVELOPMENT_KEY_ID, developmentKeyRing } from '../../services/common/crypto/field-cipher';
import { TEST_REDIS_URL } from '../setup/test-env';
import { projectAudienceEvents } from './audience-projection';
import { TestClock } from './clock';
import { LogCapture } from './log-capture';
import { createTestDatabase, deleteKeys, newQueuePrefix, TEST_TAX_KEYS } from './stack';

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

export interface ClaimHarness extends DomainHarness<ClaimDomain, ClaimDatabase> {
  /** The agency service the domain asks for attribution, to create affiliates and referrals in. */
  agency: GrpcClient<AgencyServiceClient>['call'];
  /** The audience service the agency asks for tiers, to create tier segments and their entries in. */
  audience: GrpcClient<AudienceServiceClient>['call'];
  /** The queue conversions are scheduled on (no worker reads it). */
  queues: QueueKit;
  /** The claim service's outbox relay, not started: events stay in the outbox until a test relays them (`outbox.pass()`). */
  outbox: OutboxRelay<ClaimDatabase>;
  /** Pays every stored batch not finished yet, as the job would (domain.payouts.payBatch), oldest first. */
  payAll(): Promise<void>;
  /** The same domain as another process would build it: its own connections and its own client of the agency (closed at stop). */
  anotherProcess(): ClaimDomain;
  /** The tax service the tax gate asks, to set tax settings and submit and review forms in. */
  tax: GrpcClient<TaxServiceClient>['call'];
  /** Applies the audience's events so far to the agency's membership and tier projections (no workers run here): tiers reach attribution so. */
  projectAudience(): Promise<void>;
  /** The calls the domain made to the audience service for allowlists (the real client, counted), each with its questions or ids. */
  allowlistCalls: Array<{ method: 'members' | 'missing'; asked: number }>;
}

export interface ClaimHarnessOptions extends HarnessOptions {
  /** The claim-check half's parts; by default the development signer, no chains, a 7-day TTL and the real tax service. */
  checks?: Partial<ClaimCheckDeps>;
}

/**
 * The claim domain, asking the real agency service for attribution: the agency runs in this process
 * (its gRPC server, on the same test database and clock, without workers), reached through the same
 * client the claim service uses. Batches are scheduled on a queue no worker reads: a test pays a
 * stored batch itself with `domain.payouts.payBatch(id)` (or `payAll`), the job's step.
 */
export async function startClaimDomain(options: ClaimHarnessOptions = {}): Promise<ClaimHarness> {
  const clock = options.clock ?? new TestClock();
  const logs = new LogCapture();
  const database = await openServiceDatabase<ClaimDatabase>(SERVICE_CATALOG.claim.schema, logs);
  const prefix = newQueuePrefix();
  const queues = new QueueKit({ redisUrl: TEST_REDIS_URL, prefix, logger: logs.logger('queue') });
  await queues.ready();
  const serviceEnv = {
    DATABASE_URL: database.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: '0',
    RUN_WORKERS: 'false',
    DB_POOL_MAX: '4',
  };
  // The agency asks the audience service for tiers while it attributes: that one runs here too.
  const audienceService = await startService(audienceManifest, loadConfig(audienceManifest.configSchema, serviceEnv), { clock, logger: logs.logger('audience') });
  const agencyEnv = { ...serviceEnv, [SERVICE_CATALOG.audience.addressVariable]: `127.0.0.1:${audienceService.grpcPort}` };
  const agencyService = await startService(agencyManifest, loadConfig(agencyManifest.configSchema, agencyEnv), { clock, logger: logs.logger('agency') });
  const agencyDb = openDatabase<AgencyDatabase>({ url: database.url, schema: SERVICE_CATALOG.agency.schema, poolMax: 1, applicationName: 'test-medium-projection', logger: logs.logger('db') });
  const agencyAddress = `127.0.0.1:${agencyService.grpcPort}`;
  const taxEnv = { ...agencyEnv, TAX_ENCRYPTION_KEYS: TEST_TAX_KEYS.spec, TAX_ENCRYPTION_ACTIVE_KEY_ID: TEST_TAX_KEYS.active };
  const taxService = await startService(taxManifest, loadConfig(taxManifest.configSchema, taxEnv), { clock, logger: logs.logger('tax') });
  const taxAddress = `127.0.0.1:${taxService.grpcPort}`;
  // The claim service's own clients of the three, as server.ts builds them (a loaded machine's deadline).
  const dependenciesOf = () =>
    connectClaimDependencies({
      [SERVICE_CATALOG.agency.addressVariable]: agencyAddress,
      [SERVICE_CATALOG.audience.addressVariable]: `127.0.0.1:${audienceService.grpcPort}`,
      [SERVICE_CATALOG.tax.addressVariable]: taxAddress,
      GRPC_TIMEOUT_MS: 15_000,
    });
  const dependencies = dependenciesOf();
  const { taxStatus, attribution, allowlists: allowlistClient } = dependencies;
  const tax = createGrpcClient(TaxServiceClient, taxAddress, 10_000);
  const allowlistCalls: ClaimHarness['allowlistCalls'] = [];
  // The real client, with each call written down: what the tests of the payment path's calls read.
  const allowlists: AllowlistSource = {
    members: (projectId, questions) => {
      allowlistCalls.push({ method: 'members', asked: questions.length });
      return allowlistClient.members(projectId, questions);
    },
    missing: (projectId, ids) => {
      allowlistCalls.push({ method: 'missing', asked: ids.length });
      return allowlistClient.missing(projectId, ids);
    },
  };
  const agency = createGrpcClient(AgencyServiceClient, agencyAddress, 10_000);
  const audience = createGrpcClient(AudienceServiceClient, `127.0.0.1:${audienceService.grpcPort}`, 10_000);
  const logger = logs.logger('claim');
  const others: Array<() => Promise<void>> = [];
  const outbox = new OutboxRelay(database.db, queues, { service: 'claim', clock, logger: logs.logger('outbox'), batchSize: 200, retentionMs: 168 * 3_600_000 });
  const checks: ClaimCheckDeps = {
    signer: await VoucherSigner.fromPrivateKeys([DEVELOPMENT_SIGNER_KEY]),
    chains: new ChainDirectory([], 'Referral ClaimManager', '1'),
    ttlSeconds: 7 * 86_400,
    taxStatus,
    readerOf: (chain) => claimManagerReader(chain),
    watcher: { blockRange: 2_000, maxRangesPerRun: 50, expiryBatch: 200 },
    ...options.checks,
  };
  const domain = buildClaimDomain({
    db: database.db,
    clock,
    logger,
    scheduler: new BullConversionScheduler(queues, logger),
    attribution,
    allowlists,
    outbox,
    checks,
  });
  return {
    domain,
    db: database.db,
    sql: database.sql,
    databaseUrl: database.url,
    clock,
    logs,
    agency: agency.call,
    audience: audience.call,
    tax: tax.call,
    queues,
    outbox,
    payAll: async () => {
      for (const batchId of await domain.payouts.unfinished(1_000)) await domain.payouts.payBatch(batchId);
    },
    projectAudience: () => projectAudienceEvents(database.sql, agencyDb.db, clock, logs.logger('projection')),
    allowlistCalls,
    anotherProcess: () => {
      const opened = openDatabase<ClaimDatabase>({ url: database.url, schema: SERVICE_CATALOG.claim.schema, poolMax: 2, applicationName: 'test-medium-other', logger });
      const own = dependenciesOf();
      others.push(async () => {
        own.close();
        await opened.close();
      });
      return buildClaimDomain({ db: opened.db, clock, logger, scheduler: new BullConversionScheduler(queues, logger), attribution: own.attribution, allowlists, outbox, checks });
    },
    stop: async () => {
      for (const close of others.splice(0)) await close();
      agency.close();
      audience.close();
      dependencies.close();
      tax.close();
      await agencyService.stop();
      await agencyDb.close();
      await taxService.stop();
      await audienceService.stop();
      await queues.close();
      await deleteKeys(TEST_REDIS_URL, `${prefix}:*`);
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
