import { randomUUID } from 'node:crypto';
import { AgencyServiceClient } from '../../gen/referral/agency/v1/agency';
import type { AgencyDatabase } from '../../services/agency/database';
import { openDatabase } from '../../services/platform/db/database';
import { createGrpcClient } from '../../services/platform/grpc/client';
import { SERVICE_CATALOG } from '../../services/platform/service-catalog';
import { holdRowLock } from '../helpers/faults/row-lock';
import type { ServiceProcess } from '../helpers/faults/service-process';
import { useFaultStack } from '../helpers/faults/use-fault-stack';
import { randomEvmAddress } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import { connectWallet, insertTrackingBatch, pageview } from '../helpers/tracking-batches';

/** Recovery bound: a dead worker's job lock lapses after 3 s (FAULT_TIMING), then the relay or BullMQ retries. */
const RECOVERY_MS = 45_000;
const VISITORS = 10;

/**
 * Tracking batches are durable work (tracking_event_batches): the agency process dies in the middle of
 * applying them, or Redis goes away (empty when it comes back), and afterwards every click, referral
 * and count is there exactly once: nothing lost, nothing twice.
 */
describe('tracking batch processing through an agency death and Redis loss', () => {
  const stack = useFaultStack({ services: ['agency'], ownRedis: true });
  let agency: ServiceProcess;
  let agencyDb: ReturnType<typeof openDatabase<AgencyDatabase>>;
  beforeAll(() => {
    agency = stack.service('agency');
    agencyDb = openDatabase<AgencyDatabase>({
      url: stack.databaseUrl,
      schema: SERVICE_CATALOG.agency.schema,
      poolMax: 2,
      applicationName: 'test-faults',
      logger: stack.logs.logger('db'),
    });
    stack.atStop(() => agencyDb.close());
  });

  /** A project with one affiliate (over the agency's gRPC, as the gateway would), answering its code and id. */
  async function projectWithAffiliate(): Promise<{ projectId: string; code: string; affiliateId: string }> {
    const projectId = randomUUID();
    const code = `f${randomUUID().slice(0, 8)}`;
    const client = createGrpcClient(AgencyServiceClient, agency.address, 10_000);
    try {
      const affiliate = await client.call.createAffiliate({
        projectId,
        user: { identifier: randomEvmAddress(), identifierType: 'evm_address' },
        name: 'Tracked',
        code,
      });
      return { projectId, code, affiliateId: affiliate.id };
    } finally {
      client.close();
    }
  }

  /** Per visitor, a pageview batch, then a batch with its connect_wallet and two custom events of the wallet. */
  async function storeVisits(projectId: string, code: string) {
    const now = Date.now();
    const wallets: string[] = [];
    for (let n = 0; n < VISITORS; n++) {
      const visitor = `t-${randomUUID()}`;
      const user = { identifier: randomEvmAddress(), identifierType: 'evm_address' as const };
      wallets.push(user.identifier);
      await insertTrackingBatch(agencyDb.db, projectId, new Date(now + n * 10), [pageview(visitor, code), pageview(visitor, code)]);
      await insertTrackingBatch(agencyDb.db, projectId, new Date(now + n * 10 + 5), [
        connectWallet(visitor, user),
        { name: 'swap', trackingId: visitor, user },
        { name: 'swap', trackingId: visitor, user },
      ]);
    }
    return wallets;
  }

  const count = async (query: string, params: unknown[]) => Number((await stack.db.query(query, params)).rows[0].n);
  const unprocessed = (projectId: string) =>
    count('SELECT count(*) AS n FROM agency.tracking_event_batches WHERE project_id = $1 AND processed_at IS NULL', [projectId]);

  /** Every batch processed once, and exactly what the visits cause. */
  async function expectAppliedOnce(projectId: string, affiliateId: string, wallets: string[]) {
    await pollUntil(async () => (await unprocessed(projectId)) === 0, { timeoutMs: RECOVERY_MS, intervalMs: 100, what: 'every batch processed' });
    expect(await count('SELECT count(*) AS n FROM agency.code_clicks WHERE project_id = $1', [projectId])).toBe(VISITORS);
    const referrals = await stack.db.query('SELECT identifier, affiliate_id FROM agency.referrals WHERE project_id = $1 ORDER BY identifier', [
      projectId,
    ]);
    expect(referrals.rows).toEqual([...wallets].sort().map((identifier) => ({ identifier, affiliate_id: affiliateId })));
    expect(await count("SELECT count(*) AS n FROM agency.outbox WHERE project_id = $1 AND type = 'agency.referral.created'", [projectId])).toBe(
      VISITORS,
    );
    expect(await count('SELECT end_users AS n FROM agency.affiliate_metrics WHERE affiliate_id = $1', [affiliateId])).toBe(VISITORS);
    // One counts event per connect batch: its wallet's connect_wallet once and swap twice.
    const counted = await stack.db.query("SELECT payload FROM agency.outbox WHERE project_id = $1 AND type = 'agency.user_events.counted'", [
      projectId,
    ]);
    expect(counted.rows).toHaveLength(VISITORS);
    const perWallet = new Map<string, Record<string, number>>();
    for (const { payload } of counted.rows) {
      for (const entry of payload.counts) {
        const names = perWallet.get(entry.user.identifier) ?? {};
        names[entry.name] = (names[entry.name] ?? 0) + entry.count;
        perWallet.set(entry.user.identifier, names);
      }
    }
    expect(Object.fromEntries(perWallet)).toEqual(Object.fromEntries(wallets.map((wallet) => [wallet, { connect_wallet: 1, swap: 2 }])));
    expect(
      await count(`SELECT count(*) AS n FROM agency.tracking_event_outcomes WHERE project_id = $1 AND outcome IN ('click', 'referred')`, [projectId]),
    ).toBe(VISITORS * 3);
  }

  /**
   * Stores the visits while the affiliate's row is locked: referring reads the affiliate FOR SHARE, so the connect
   * batches stop half-way (clicks written, uncommitted). Does `meanwhile` once a batch waits, then lets the batches
   * go on; answers the visitors' wallets.
   */
  async function storeVisitsHalfApplied(projectId: string, code: string, affiliateId: string, meanwhile: () => Promise<unknown>): Promise<string[]> {
    const lock = await holdRowLock(stack.databaseUrl, 'SELECT 1 FROM agency.affiliates WHERE id = $1 FOR UPDATE', [affiliateId]);
    try {
      const wallets = await storeVisits(projectId, code);
      await pollUntil(async () => (await lock.waiters()) >= 1, { timeoutMs: 20_000, intervalMs: 50, what: 'a batch waiting on the affiliate' });
      await meanwhile();
      return wallets;
    } finally {
      await lock.release();
    }
  }

  it('applies every batch exactly once when the agency process dies (SIGKILL) in the middle of applying them', async () => {
    const { projectId, code, affiliateId } = await projectWithAffiliate();
    const wallets = await storeVisitsHalfApplied(projectId, code, affiliateId, () => agency.kill());
    expect(await count('SELECT count(*) AS n FROM agency.referrals WHERE project_id = $1', [projectId])).toBe(0);
    await agency.restart();
    await expectAppliedOnce(projectId, affiliateId, wallets);
  }, 90_000);

  it('applies batches stored while Redis is away once it is back, empty (the relay queues them from PostgreSQL)', async () => {
    const { projectId, code, affiliateId } = await projectWithAffiliate();
    await stack.redis!.stop();
    const wallets = await storeVisits(projectId, code);
    expect(await unprocessed(projectId)).toBe(VISITORS * 2);
    await stack.redis!.startEmpty();
    await expectAppliedOnce(projectId, affiliateId, wallets);
  }, 90_000);

  it('applies every batch once when Redis goes away while they are being applied and comes back empty', async () => {
    const { projectId, code, affiliateId } = await projectWithAffiliate();
    const wallets = await storeVisitsHalfApplied(projectId, code, affiliateId, () => stack.redis!.stop());
    await stack.redis!.startEmpty();
    await expectAppliedOnce(projectId, affiliateId, wallets);
  }, 90_000);
});
