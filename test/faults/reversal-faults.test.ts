import { randomUUID } from 'node:crypto';
import { type ClaimChain, type ClaimProject, claimProject, startClaimChain } from '../claim/claim-check-stack';
import { holdRowLock } from '../helpers/faults/row-lock';
import type { ServiceProcess } from '../helpers/faults/service-process';
import { useFaultStack } from '../helpers/faults/use-fault-stack';
import { randomEvmAddress } from '../helpers/fixtures';
import type { Api } from '../helpers/http';
import { pollUntil } from '../helpers/poll';

/**
 * Reversals through a process death: the claim service is a real process, killed with SIGKILL while
 * reversals wait inside their transactions (another transaction holds the open checks they must
 * shrink), after others were answered. The killed ones committed nothing; after the restart a retry
 * of every reversal with its reversal_id and body answers the reversal made before (200) or makes it
 * now (201), so each is applied exactly once: one reversal row, one part per movement, one event, and
 * the debt of the users whose vouchers were out exactly what their reversals took.
 */
describe('reversals through process deaths', () => {
  let claimChain: ClaimChain;
  const stack = useFaultStack(async () => {
    claimChain = await startClaimChain(new Date());
    return { services: ['audience', 'tax', 'agency', 'claim'], ownRedis: true, serviceEnv: { ...claimChain.env, DB_POOL_MAX: '30' } };
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

  /** `count` new users, each paid once (1% of reward_base) through the batch endpoint and the job. */
  async function paidUsers(count: number) {
    const entries = Array.from({ length: count }, (_, index) => ({
      user: randomEvmAddress(),
      conversionId: `order-${randomUUID()}`,
      amount: BigInt(1_000 * (index + 1) + index),
    }));
    const conversions = entries.map((entry) => ({
      id: entry.conversionId,
      name: 'trade',
      user: { identifier: entry.user, identifier_type: 'evm_address' },
      reward_base: String(entry.amount * 100n),
    }));
    expect((await api.post('/api/v1/conversions/batch', { key: project.keys.service, body: { conversions } })).status).toBe(202);
    await pollUntil(
      async () =>
        (
          await rows('SELECT count(*)::int AS n FROM claim.conversions WHERE project_id = $1 AND id = ANY($2) AND status = $3', [
            project.id,
            conversions.map((one) => one.id),
            'processed',
          ])
        )[0]!.n === count,
      { timeoutMs: 30_000, what: `${count} conversions to be paid` },
    );
    return entries;
  }

  const openCheckOf = async (user: string) =>
    (
      await rows<{ id: string }>("SELECT id FROM claim.claim_checks WHERE project_id = $1 AND identifier = $2 AND status = 'open'", [
        project.id,
        user,
      ])
    )[0]!.id;

  const reverse = (conversionId: string, shareBps: number) =>
    api.post(`/api/v1/conversions/${conversionId}/reverse`, {
      key: project.keys.service,
      body: { reversal_id: `refund-${conversionId}`, reason: 'refunded', share_bps: shareBps },
    });

  it('a claim service killed inside reversals: the retries apply each exactly once, debt and checks exact', async () => {
    const entries = await paidUsers(20);
    // The first ten users' vouchers are out: what their reversals take becomes debt. The others' checks stay open and shrink.
    const vouchered = entries.slice(0, 10);
    for (const entry of vouchered) {
      const closed = await api.post('/api/v1/claim-checks/close', {
        key: project.keys.service,
        body: { userIdentifier: entry.user, userIdentifierType: 'evm_address', claim_check_ids: [await openCheckOf(entry.user)] },
      });
      expect(closed.status).toBe(200);
    }
    const open = entries.slice(10);
    const share = (index: number) => (index % 2 === 0 ? 10_000 : 3_333);
    const part = (index: number) => (entries[index]!.amount * BigInt(share(index))) / 10_000n;

    // The open users' checks are held by another transaction (as a payment would): their reversals wait inside theirs.
    const lock = await holdRowLock(stack.databaseUrl, 'SELECT 1 FROM claim.claim_checks WHERE id = ANY($1) FOR UPDATE', [
      await Promise.all(open.map((entry) => openCheckOf(entry.user))),
    ]);
    let answeredBefore: Array<Awaited<ReturnType<typeof reverse>>>;
    let killedInside: Array<Awaited<ReturnType<typeof reverse>>>;
    try {
      const waiting = Promise.all(open.map((entry, index) => reverse(entry.conversionId, share(10 + index))));
      // The vouchered users' reversals are answered in full before the kill.
      answeredBefore = await Promise.all(vouchered.map((entry, index) => reverse(entry.conversionId, share(index))));
      await pollUntil(async () => (await lock.waiters()) >= open.length, {
        timeoutMs: 30_000,
        what: 'the open users’ reversals to wait inside their transactions',
      });
      await claim.kill();
      killedInside = await waiting;
    } finally {
      await lock.release();
    }
    expect(answeredBefore.map((response) => response.status)).toEqual(vouchered.map(() => 201));
    // The killed reversals were answered as unavailable and committed nothing.
    expect(killedInside.every((response) => [503, 504].includes(response.status))).toBe(true);
    const applied = async () =>
      rows<{ reversal_id: string }>('SELECT reversal_id FROM claim.conversion_reversals WHERE project_id = $1', [project.id]);
    expect((await applied()).map((row) => row.reversal_id).sort()).toEqual(vouchered.map((entry) => `refund-${entry.conversionId}`).sort());

    await claim.restart();
    // Every reversal again, twice at once: the answered ones replay (200), the killed ones are made once (one 201, one 200).
    const retried = await Promise.all(
      entries.flatMap((entry, index) => [reverse(entry.conversionId, share(index)), reverse(entry.conversionId, share(index))]),
    );
    for (const [index, entry] of entries.entries()) {
      const statuses = [retried[2 * index]!.status, retried[2 * index + 1]!.status].sort();
      expect({ conversion: entry.conversionId, statuses }).toEqual({
        conversion: entry.conversionId,
        statuses: index < 10 ? [200, 200] : [200, 201],
      });
      expect(retried[2 * index]!.body).toEqual(retried[2 * index + 1]!.body);
    }
    for (const [index, response] of answeredBefore.entries()) expect(retried[2 * index]!.body).toEqual(response.body);

    const [counts] = await rows<{ reversals: number; parts: number; events: number }>(
      `SELECT (SELECT count(*)::int FROM claim.conversion_reversals WHERE project_id = $1) AS reversals,
              (SELECT count(*)::int FROM claim.movement_reversals WHERE project_id = $1) AS parts,
              (SELECT count(*)::int FROM claim.outbox WHERE project_id = $1 AND type = 'claim.conversion.reversed') AS events`,
      [project.id],
    );
    expect(counts).toEqual({ reversals: 20, parts: 20, events: 20 });
    // Per user: the vouchered ones owe exactly what their reversal took (carried on an open check holding nothing); the others'
    // open checks hold what they were paid less what their reversal took, and no debt.
    const checks = await rows<{ identifier: string; status: string; amount: string; debt: string }>(
      'SELECT identifier, status, amount::text, debt::text FROM claim.claim_checks WHERE project_id = $1 AND identifier = ANY($2)',
      [project.id, entries.map((entry) => entry.user)],
    );
    for (const [index, entry] of entries.entries()) {
      const mine = checks.filter((check) => check.identifier === entry.user).map(({ status, amount, debt }) => ({ status, amount, debt }));
      const expected =
        index < 10
          ? [
              { status: 'closed', amount: String(entry.amount), debt: '0' },
              { status: 'open', amount: '0', debt: String(part(index)) },
            ]
          : [{ status: 'open', amount: String(entry.amount - part(index)), debt: '0' }];
      expect({ user: entry.user, checks: mine.sort((a, b) => a.status.localeCompare(b.status)) }).toEqual({ user: entry.user, checks: expected });
    }
    const books = await api.get(`/api/v1/projects/${project.id}/ledger/reconciliation`, { key: project.keys.admin });
    expect(books.status).toBe(200);
    expect(books.body.balanced).toBe(true);
  }, 180_000);
});
