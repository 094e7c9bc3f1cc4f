import { randomUUID } from 'node:crypto';
import {
  type ClaimChain,
  type ClaimProject,
  type ClaimResponse,
  claimProject,
  CONFIRMATIONS,
  startClaimChain,
  TTL_SECONDS,
} from '../claim/claim-check-stack';
import { holdRowLock } from '../helpers/faults/row-lock';
import type { ServiceProcess } from '../helpers/faults/service-process';
import { useFaultStack } from '../helpers/faults/use-fault-stack';
import { randomEvmAddress } from '../helpers/fixtures';
import type { Api } from '../helpers/http';
import { pollUntil } from '../helpers/poll';

/**
 * Claim checks through process deaths and Redis loss: the claim service runs as a real process
 * (killed with SIGKILL while closes and the chain watcher are inside their transactions, then
 * restarted in place), Redis is a server of the test's own (stopped, started again empty), and
 * ClaimManager runs on the in-process EVM over JSON-RPC. Every test counts exactly: one voucher per
 * check, one claim per redemption, one credit per expired voucher, and the ledger's sums.
 */
describe('claim checks through process deaths and Redis loss', () => {
  let claimChain: ClaimChain;
  // The chain first: the claim service is configured with its address and contract.
  const stack = useFaultStack(async () => {
    claimChain = await startClaimChain(new Date());
    return {
      services: ['audience', 'tax', 'agency', 'claim'],
      ownRedis: true,
      serviceEnv: { ...claimChain.env, CHAIN_WATCH_EVERY_MS: '300', DB_POOL_MAX: '20' },
    };
  });
  let claim: ServiceProcess;
  let api: Api;
  let project: ClaimProject;

  beforeAll(async () => {
    claim = stack.service('claim');
    api = stack.gateway.api;
    project = await claimProject(stack.gateway, claimChain);
  });
  afterAll(async () => {
    await claimChain?.chain.stop();
  });

  const rows = async <T = Record<string, any>>(text: string, values: unknown[] = []) => (await stack.db.query(text, values)).rows as T[];

  /** `count` new users, each paid once (1% of reward_base) through the batch endpoint and the job; their open checks. */
  async function usersWithOpenChecks(count: number): Promise<Array<{ user: string; checkId: string; amount: string }>> {
    const users = Array.from({ length: count }, () => randomEvmAddress());
    const conversions = users.map((user, index) => ({
      id: `order-${randomUUID()}`,
      name: 'trade',
      user: { identifier: user, identifier_type: 'evm_address' },
      reward_base: String(10_000 * (index + 1)),
    }));
    const submitted = await api.post('/api/v1/conversions/batch', { key: project.keys.service, body: { conversions } });
    expect(submitted.status).toBe(202);
    await pollUntil(
      async () =>
        (
          await rows('SELECT count(*)::int AS n FROM claim.conversions WHERE id = ANY($1) AND status = $2', [
            conversions.map((c) => c.id),
            'processed',
          ])
        )[0]!.n === count,
      { timeoutMs: 30_000, what: `${count} conversions to be paid` },
    );
    const checks = await rows<{ identifier: string; id: string; amount: string }>(
      "SELECT identifier, id, amount::text FROM claim.claim_checks WHERE identifier = ANY($1) AND status = 'open'",
      [users],
    );
    return users.map((user) => {
      const check = checks.find((row) => row.identifier === user)!;
      return { user, checkId: check.id, amount: check.amount };
    });
  }

  const close = (user: string, ids: string[]) =>
    api.post('/api/v1/claim-checks/close', {
      key: project.keys.service,
      body: { userIdentifier: user, userIdentifierType: 'evm_address', claim_check_ids: ids },
    });

  /** Every check of these users: closed with exactly one voucher of its amount, or still as given. */
  async function vouchersOf(checkIds: string[]) {
    return rows<{ claim_check_id: string; amount: string; proof: string; status: string }>(
      `SELECT v.claim_check_id, v.amount::text, v.proof, cc.status FROM claim.vouchers v JOIN claim.claim_checks cc ON cc.id = v.claim_check_id
       WHERE v.claim_check_id = ANY($1) ORDER BY v.claim_check_id`,
      [checkIds],
    );
  }

  /** movements = open + closed + claimed (credits included), expired = credited, per user of the project. */
  async function expectSumsHold() {
    const unbalanced = await rows(
      `WITH m AS (SELECT identifier, currency_id, sum(amount) AS amount FROM claim.movements WHERE project_id = $1 GROUP BY 1, 2),
            c AS (SELECT identifier, currency_id, sum(amount) FILTER (WHERE status <> 'expired') AS live, coalesce(sum(amount) FILTER (WHERE status = 'expired'), 0) AS expired
                  FROM claim.claim_checks WHERE project_id = $1 GROUP BY 1, 2),
            k AS (SELECT cc.identifier, cc.currency_id, sum(k.amount) AS amount FROM claim.claim_check_credits k JOIN claim.claim_checks cc ON cc.id = k.expired_check_id
                  WHERE k.project_id = $1 GROUP BY 1, 2)
       SELECT * FROM m FULL JOIN c USING (identifier, currency_id) LEFT JOIN k USING (identifier, currency_id)
       WHERE m.amount IS DISTINCT FROM c.live OR c.expired <> coalesce(k.amount, 0)`,
      [project.id],
    );
    expect(unbalanced).toEqual([]);
  }

  it('hands out one voucher per check when the claim service is killed (SIGKILL) inside closes, and the retries answer it', async () => {
    const users = await usersWithOpenChecks(30);
    const locked = users.slice(0, 5);
    const unlocked = users.slice(5);
    // The first half's checks are locked, as a payment in progress would: their closes wait inside their transactions.
    const lock = await holdRowLock(stack.databaseUrl, 'SELECT 1 FROM claim.claim_checks WHERE id = ANY($1) FOR UPDATE', [
      locked.map((entry) => entry.checkId),
    ]);
    const twice = (entries: typeof users) =>
      Promise.all(entries.flatMap((entry) => [close(entry.user, [entry.checkId]), close(entry.user, [entry.checkId])]));
    let answeredBefore: Array<Awaited<ReturnType<typeof close>>>;
    let killedInside: Array<Awaited<ReturnType<typeof close>>>;
    try {
      const lockedCloses = twice(locked);
      // The unlocked closes are answered in full before the kill (their commit alone is not enough:
      // on a slow machine their answers could still be on their way, and the kill would drop them).
      answeredBefore = await twice(unlocked);
      await pollUntil(async () => (await lock.waiters()) >= 1, { timeoutMs: 30_000, what: 'the locked closes to wait inside their transactions' });
      await claim.kill();
      killedInside = await lockedCloses;
    } finally {
      await lock.release();
    }
    // The killed closes committed nothing: their checks are still open.
    expect(await vouchersOf(locked.map((entry) => entry.checkId))).toEqual([]);

    await claim.restart();
    const retried = await Promise.all(users.map((entry) => close(entry.user, [entry.checkId])));
    expect(retried.map((response) => response.status)).toEqual(users.map(() => 200));
    const vouchers = await vouchersOf(users.map((entry) => entry.checkId));
    expect(vouchers).toHaveLength(30);
    const proofOf = new Map(vouchers.map((voucher) => [voucher.claim_check_id, voucher.proof]));
    for (const [index, entry] of users.entries()) {
      expect(retried[index]!.body).toEqual([expect.objectContaining({ id: entry.checkId, amount: entry.amount, proof: proofOf.get(entry.checkId) })]);
    }
    // What was answered before the kill is the one voucher of its check; the closes killed inside
    // their transactions were answered as unavailable, never with a voucher.
    expect(answeredBefore.map((response) => response.status)).toEqual(answeredBefore.map(() => 200));
    for (const response of answeredBefore) expect(response.body[0].proof).toBe(proofOf.get(response.body[0].id));
    expect(killedInside.every((response) => [503, 504].includes(response.status))).toBe(true);
    await expectSumsHold();
  }, 120_000);

  it('closes while Redis is away, and marks redemptions claimed once Redis is back empty, without a restart', async () => {
    const users = await usersWithOpenChecks(4);
    await stack.redis!.stop();
    // Closing needs PostgreSQL and the tax gate only.
    const closed = await Promise.all(users.map((entry) => close(entry.user, [entry.checkId])));
    expect(closed.map((response) => response.status)).toEqual(users.map(() => 200));
    const vouchers = closed.map((response) => (response.body as ClaimResponse[])[0]!);
    for (const voucher of vouchers) expect((await claimChain.redeem([voucher])).status).toBe('success');
    await claimChain.chain.mine(CONFIRMATIONS);

    await stack.redis!.startEmpty();
    // The relay puts the watch schedule back into the empty Redis; the watcher reads on from its cursor in PostgreSQL.
    await pollUntil(
      async () =>
        (await rows("SELECT id FROM claim.claim_checks WHERE id = ANY($1) AND status = 'claimed'", [users.map((entry) => entry.checkId)])).length ===
        4,
      {
        timeoutMs: 30_000,
        what: 'the redemptions to be marked claimed after Redis came back',
      },
    );
    const claimedTwice = await rows('SELECT proof FROM claim.vouchers GROUP BY proof HAVING count(*) > 1');
    expect(claimedTwice).toEqual([]);
    await expectSumsHold();
  }, 120_000);

  // Last: it moves the chain's clock past every deadline, and the services' clock (the system's) cannot follow.
  it('marks every redemption claimed once, and credits every expired voucher once, when the watcher is killed (SIGKILL) inside its transactions', async () => {
    const users = await usersWithOpenChecks(8);
    const vouchers = (await Promise.all(users.map((entry) => close(entry.user, [entry.checkId])))).map(
      (response) => (response.body as ClaimResponse[])[0]!,
    );
    // Half are redeemed; the other half will expire.
    const redeemed = vouchers.slice(0, 4);
    // The watcher's cursor row is locked first: its next run waits inside the transaction that applies the Claimed logs.
    const cursor = await holdRowLock(stack.databaseUrl, 'SELECT 1 FROM claim.chain_cursors FOR UPDATE');
    const receipts: Array<Awaited<ReturnType<ClaimChain['redeem']>>> = [];
    try {
      for (const voucher of redeemed) receipts.push(await claimChain.redeem([voucher]));
      expect(receipts.map((receipt) => receipt.status)).toEqual(receipts.map(() => 'success'));
      await claimChain.chain.mine(CONFIRMATIONS);
      await pollUntil(async () => (await cursor.waiters()) >= 1, { timeoutMs: 30_000, what: 'the watcher to wait for its cursor' });
      await claim.kill();
    } finally {
      await cursor.release();
    }
    expect(await rows("SELECT id FROM claim.claim_checks WHERE id = ANY($1) AND status = 'claimed'", [users.map((entry) => entry.checkId)])).toEqual(
      [],
    );
    await claim.restart();
    await pollUntil(
      async () =>
        (await rows("SELECT id FROM claim.claim_checks WHERE id = ANY($1) AND status = 'claimed'", [users.map((entry) => entry.checkId)])).length ===
        4,
      {
        timeoutMs: 30_000,
        what: 'the four redemptions to be marked claimed',
      },
    );
    const claimed = await rows<{ claim_check_id: string; claim_tx_hash: string }>(
      'SELECT claim_check_id, claim_tx_hash FROM claim.vouchers WHERE claimed_at IS NOT NULL AND claim_check_id = ANY($1)',
      [users.map((entry) => entry.checkId)],
    );
    expect(new Map(claimed.map((row) => [row.claim_check_id, row.claim_tx_hash]))).toEqual(
      new Map(redeemed.map((voucher, index) => [voucher.id, receipts[index]!.transactionHash])),
    );

    // The rest expire; the watcher is killed inside the credit of one of them (its check locked).
    const expiring = users.slice(4);
    const held = await holdRowLock(stack.databaseUrl, 'SELECT 1 FROM claim.claim_checks WHERE id = $1 FOR UPDATE', [expiring[0]!.checkId]);
    try {
      await claimChain.chain.increaseTime(TTL_SECONDS + 60);
      await claimChain.chain.mine(CONFIRMATIONS);
      await pollUntil(async () => (await held.waiters()) >= 1, { timeoutMs: 30_000, what: 'the watcher to wait inside a credit' });
      await claim.kill();
    } finally {
      await held.release();
    }
    await claim.restart();
    await pollUntil(
      async () =>
        (await rows("SELECT id FROM claim.claim_checks WHERE id = ANY($1) AND status = 'expired'", [expiring.map((entry) => entry.checkId)]))
          .length === 4,
      {
        timeoutMs: 30_000,
        what: 'the four unredeemed vouchers to expire',
      },
    );
    const credits = await rows<{ expired_check_id: string; amount: string }>(
      'SELECT expired_check_id, amount::text FROM claim.claim_check_credits WHERE expired_check_id = ANY($1)',
      [expiring.map((entry) => entry.checkId)],
    );
    expect(new Map(credits.map((row) => [row.expired_check_id, row.amount]))).toEqual(
      new Map(expiring.map((entry) => [entry.checkId, entry.amount])),
    );
    const reopened = await rows<{ identifier: string; amount: string }>(
      "SELECT identifier, amount::text FROM claim.claim_checks WHERE identifier = ANY($1) AND status = 'open'",
      [expiring.map((entry) => entry.user)],
    );
    expect(new Map(reopened.map((row) => [row.identifier, row.amount]))).toEqual(new Map(expiring.map((entry) => [entry.user, entry.amount])));
    for (const entry of users.slice(0, 4)) expect(await claimChain.balanceOf(entry.user)).toBe(BigInt(entry.amount));
    await expectSumsHold();
  }, 150_000);
});
