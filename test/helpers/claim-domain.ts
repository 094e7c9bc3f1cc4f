import type { Kysely } from 'kysely';
import { DEVELOPMENT_SIGNER_KEY } from '../../services/claim/chain/chain-config';
import { claimManagerReader } from '../../services/claim/chain/claim-manager-reader';
import { VoucherSigner } from '../../services/claim/chain/voucher-signer';
import { buildClaimDomain, type ClaimCheckDeps, type ClaimDomain } from '../../services/claim/composition';
import type { ClaimDatabase } from '../../services/claim/database';
import { ChainDirectory } from '../../services/claim/domain/chains';
import { openDatabase } from '../../services/platform/db/database';
import { SERVICE_CATALOG } from '../../services/platform/service-catalog';
import { TestClock } from './clock';
import { type DomainHarness, type HarnessOptions, openServiceDatabase } from './domain';
import { FakeAgency } from './fakes/agency';
import { FakeAudiences } from './fakes/audience';
import { RecordingConversionScheduler } from './fakes/conversion-scheduler';
import { FakeTaxStatuses } from './fakes/tax';
import { LogCapture } from './log-capture';

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
 * The claim domain over a database that already exists (a fault stack's), as a process with this
 * clock would build it, with fakes of the services it asks (nobody referred anyone, no allowlists):
 * e.g. to pay conversions the way the job does, at another moment than the system clock's.
 * Batches it stores are scheduled nowhere: pay them with `payouts.payBatch`.
 */
export async function claimDomainOver(databaseUrl: string, clock: TestClock): Promise<{ domain: ClaimDomain; close(): Promise<void> }> {
  const logs = new LogCapture();
  const logger = logs.logger('claim-in-test');
  const opened = openDatabase<ClaimDatabase>({
    url: databaseUrl,
    schema: SERVICE_CATALOG.claim.schema,
    poolMax: 4,
    applicationName: 'test-claim-domain',
    logger,
  });
  const domain = buildClaimDomain({
    db: opened.db,
    clock,
    logger,
    scheduler: new RecordingConversionScheduler(),
    attribution: new FakeAgency(clock),
    allowlists: new FakeAudiences(),
    outbox: { wake: () => undefined },
    checks: await defaultChecks(new FakeTaxStatuses(clock)),
  });
  return { domain, close: () => opened.close() };
}

async function defaultChecks(taxStatus: FakeTaxStatuses): Promise<ClaimCheckDeps> {
  return {
    signer: await VoucherSigner.fromPrivateKeys([DEVELOPMENT_SIGNER_KEY]),
    chains: new ChainDirectory([], 'Referral ClaimManager', '1'),
    ttlSeconds: 7 * 86_400,
    taxStatus,
    readerOf: (chain) => claimManagerReader(chain),
    watcher: { blockRange: 2_000, maxRangesPerRun: 50, expiryBatch: 200 },
  };
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
  const checks: ClaimCheckDeps = { ...(await defaultChecks(taxStatuses)), ...options.checks };
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
      const opened = openDatabase<ClaimDatabase>({
        url: database.url,
        schema: SERVICE_CATALOG.claim.schema,
        poolMax: 2,
        applicationName: 'test-medium-other',
        logger,
      });
      others.push(() => opened.close());
      return build(opened.db);
    },
    stop: async () => {
      for (const close of others.splice(0)) await close();
      await database.close();
    },
  };
}
