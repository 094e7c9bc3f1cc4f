import { randomUUID } from 'node:crypto';
import {
  type ClaimChain,
  type ClaimProject,
  type ClaimResponse,
  claimProject,
  CONFIRMATIONS,
  newAffiliate,
  startClaimChain,
} from '../claim/claim-check-stack';
import type { GatewayProcess } from '../helpers/faults/fault-stack';
import type { ServiceProcess } from '../helpers/faults/service-process';
import { useFaultStack } from '../helpers/faults/use-fault-stack';
import { createProject, randomEvmAddress } from '../helpers/fixtures';
import type { Api } from '../helpers/http';
import { pollUntil } from '../helpers/poll';

/**
 * The platform scaled out on one database and one Redis (docs/capacity.md): two gateway processes
 * and two claim service processes, each a real OS process started from its main.ts, the other
 * services once. Gateway A calls the first claim process, gateway B the second, and both claim
 * processes run the payment workers, relays and chain watcher on the same queues. Conversions and
 * closes go through both gateways at once, each also sent again through the other, so the two claim
 * processes store the same conversions and pay and close side by side. Afterwards every count is
 * exact: one payment per conversion, one voucher per check, one claim per redemption, the books
 * balanced; and a key revoked through one gateway is refused by the other at once.
 */
const USERS = 16;
const BATCHES = 6;
const BATCH_SIZE = 25;
const SINGLES = 24;

describe('two gateways and two claim processes over one database', () => {
  let claimChain: ClaimChain;
  // The chain first: the claim processes are configured with its address and contract.
  const stack = useFaultStack(async () => {
    claimChain = await startClaimChain(new Date());
    return { services: ['audience', 'tax', 'agency', 'claim', 'webhooks'], serviceEnv: { ...claimChain.env, CHAIN_WATCH_EVERY_MS: '300' } };
  });
  let claims: [ServiceProcess, ServiceProcess];
  let a: GatewayProcess;
  let b: GatewayProcess;

  beforeAll(async () => {
    const [second, gateway] = await Promise.all([stack.startReplica('claim'), stack.startGatewayProcess()]);
    claims = [stack.service('claim'), second];
    a = gateway;
    b = await stack.startGatewayProcess({ claim: second });
  }, 120_000);
  afterAll(async () => {
    await claimChain?.chain.stop();
  });

  const rows = async <T = Record<string, any>>(text: string, values: unknown[] = []) => (await stack.db.query(text, values)).rows as T[];

  /** The same request through both gateways at once, A's answer first. */
  const both = <T>(send: (api: Api) => Promise<T>) => Promise.all([send(a.api), send(b.api)]);

  it('pays every conversion sent through both gateways exactly once, signs one voucher per check, claims each redemption once, and balances', async () => {
    const project: ClaimProject = await claimProject(a, claimChain);
    const affiliate = await newAffiliate(a, project);
    const users = Array.from({ length: USERS }, () => randomEvmAddress());
    // Every other user is referred by the affiliate, through gateway B, so the affiliate's open check and leaderboard row take payments from every batch.
    const referred = new Set(users.filter((_, index) => index % 2 === 0));
    for (const user of referred) {
      const response = await b.api.post('/api/v1/referrals', {
        key: project.keys.service,
        body: { user_identifier: user, user_identifier_type: 'evm_address', code: affiliate.code },
      });
      expect(response.status).toBe(201);
    }

    const conversion = (index: number) => ({
      id: `order-${randomUUID()}`,
      name: 'trade',
      user: { identifier: users[index % USERS]!, identifier_type: 'evm_address' },
      reward_base: String(10_000 + index),
    });
    const batches = Array.from({ length: BATCHES }, (_, n) => Array.from({ length: BATCH_SIZE }, (_, i) => conversion(n * BATCH_SIZE + i)));
    const singles = Array.from({ length: SINGLES }, (_, i) => conversion(BATCHES * BATCH_SIZE + i));
    const send = (api: Api, path: string, body: unknown) => api.post(path, { key: project.keys.service, body });
    // Each batch and each single conversion through both gateways at once, all of them together.
    const [batchAnswers, singleAnswers] = await Promise.all([
      Promise.all(batches.map((conversions) => both((api) => send(api, '/api/v1/conversions/batch', { conversions })))),
      Promise.all(singles.map((body) => both((api) => send(api, '/api/v1/conversions', body)))),
    ]);
    // Each conversion was stored by one of the two claim processes, and the other answered it as a duplicate.
    for (const [index, pair] of batchAnswers.entries()) {
      expect(pair.map((answer) => answer.status).every((status) => status === 200 || status === 202)).toBe(true);
      for (const [i, item] of batches[index]!.entries()) {
        expect(
          pair
            .map((answer) => answer.body.results[i])
            .map((result: any) => [result.id, result.outcome])
            .sort(),
        ).toEqual([
          [item.id, 'accepted'],
          [item.id, 'duplicate'],
        ]);
      }
    }
    for (const pair of singleAnswers) expect(pair.map((answer) => answer.status).sort()).toEqual([200, 202]);

    const all = [...batches.flat(), ...singles];
    await pollUntil(
      async () =>
        (await rows("SELECT count(*)::int AS n FROM claim.conversions WHERE project_id = $1 AND status = 'processed'", [project.id]))[0]!.n ===
        all.length,
      { timeoutMs: 60_000, intervalMs: 100, what: `all ${all.length} conversions to be paid` },
    );
    // Paid exactly once: per conversion one end-user payout, and one affiliate payout when its user was referred; one event each.
    const movements = await rows<{ conversion_id: string; kind: string; n: number }>(
      'SELECT conversion_id, kind, count(*)::int AS n FROM claim.movements WHERE project_id = $1 GROUP BY 1, 2 ORDER BY 1, 2',
      [project.id],
    );
    const expected = all
      .flatMap((item) => [
        ...(referred.has(item.user.identifier) ? [{ conversion_id: item.id, kind: 'affiliate_payout', n: 1 }] : []),
        { conversion_id: item.id, kind: 'end_user_payout', n: 1 },
      ])
      .sort((x, y) => (x.conversion_id === y.conversion_id ? x.kind.localeCompare(y.kind) : x.conversion_id < y.conversion_id ? -1 : 1));
    expect(movements).toEqual(expected);
    const [counts] = await rows(
      `SELECT (SELECT count(*)::int FROM claim.conversions WHERE project_id = $1) AS conversions,
              (SELECT count(*)::int FROM claim.outbox WHERE project_id = $1 AND type = 'claim.conversion.processed') AS events,
              (SELECT count(DISTINCT payload->>'conversion_id')::int FROM claim.outbox WHERE project_id = $1 AND type = 'claim.conversion.processed') AS distinct_events,
              (SELECT count(*)::int FROM claim.conversion_batches WHERE project_id = $1 AND finished_at IS NULL) AS unfinished`,
      [project.id],
    );
    expect(counts).toEqual({ conversions: all.length, events: all.length, distinct_events: all.length, unfinished: 0 });
    // Both claim processes paid batches: the queue's jobs record the process that ran them.
    const paidBy = new Set((await stack.queues.queue('claim-pay-conversions').getCompleted(0, -1)).map((job) => job.processedBy?.split(':').pop()));
    expect([...paidBy].sort()).toEqual(claims.map((claim) => String(claim.pid)).sort());

    // Every check of every user closed through both gateways at once: one voucher each, the same one in both answers.
    const payees = [...users, affiliate.identifier];
    const checks = await rows<{ id: string; identifier: string; amount: string }>(
      "SELECT id, identifier, amount::text FROM claim.claim_checks WHERE project_id = $1 AND status = 'open' ORDER BY id",
      [project.id],
    );
    expect(new Set(checks.map((check) => check.identifier))).toEqual(new Set(payees));
    const closes = await Promise.all(
      payees.map((user) => {
        const ids = checks.filter((check) => check.identifier === user).map((check) => check.id);
        const body = { userIdentifier: user, userIdentifierType: 'evm_address', claim_check_ids: ids };
        return both((api) => api.post('/api/v1/claim-checks/close', { key: project.keys.service, body }));
      }),
    );
    for (const [answerA, answerB] of closes) {
      expect([answerA.status, answerB.status]).toEqual([200, 200]);
      expect(answerB.body).toEqual(answerA.body);
    }
    const vouchers = await rows<{ claim_check_id: string; proof: string; amount: string }>(
      'SELECT v.claim_check_id, v.proof, v.amount::text FROM claim.vouchers v JOIN claim.claim_checks c ON c.id = v.claim_check_id WHERE c.project_id = $1 ORDER BY 1',
      [project.id],
    );
    expect(vouchers.map((voucher) => [voucher.claim_check_id, voucher.amount])).toEqual(checks.map((check) => [check.id, check.amount]));
    expect(new Set(vouchers.map((voucher) => voucher.proof)).size).toBe(checks.length);
    const answered = closes.flatMap(([answerA]) => answerA.body as ClaimResponse[]);
    expect(answered.map((voucher) => [voucher.id, voucher.proof]).sort()).toEqual(vouchers.map((voucher) => [voucher.claim_check_id, voucher.proof]));

    // Three vouchers redeemed on chain: the chain watcher, whichever claim process runs it, marks each claimed once.
    const redeemed = answered.slice(0, 3);
    expect((await claimChain.redeem(redeemed)).status).toBe('success');
    await claimChain.chain.mine(CONFIRMATIONS);
    const ids = redeemed.map((voucher) => voucher.id);
    await pollUntil(
      async () => (await rows("SELECT count(*)::int AS n FROM claim.claim_checks WHERE id = ANY($1) AND status = 'claimed'", [ids]))[0]!.n === 3,
      { timeoutMs: 30_000, what: 'the three redemptions to be marked claimed' },
    );
    const [claimed] = await rows(
      `SELECT (SELECT count(*)::int FROM claim.claim_checks WHERE project_id = $1 AND status = 'claimed') AS checks,
              (SELECT count(*)::int FROM claim.outbox WHERE project_id = $1 AND type = 'claim.claim_check.claimed') AS events`,
      [project.id],
    );
    expect(claimed).toEqual({ checks: 3, events: 3 });

    // The books, read through either gateway: balanced, every base unit paid in a check.
    const books = await both((api) => api.get(`/api/v1/projects/${project.id}/ledger/reconciliation`, { key: project.keys.admin }));
    expect(books.map((answer) => answer.status)).toEqual([200, 200]);
    expect(books[1].body).toEqual(books[0].body);
    expect(books[0].body.balanced).toBe(true);
    const line = (kind: string) => books[0].body.results.find((result: any) => result.kind === kind);
    const affiliatePaid = checks.filter((check) => check.identifier === affiliate.identifier).reduce((sum, check) => sum + BigInt(check.amount), 0n);
    expect(line('affiliate_payout')).toMatchObject({ earned: String(affiliatePaid), available: String(affiliatePaid), in_open_checks: '0' });
  }, 120_000);

  it('refuses a key on the other gateway process at once when one has revoked it, both ways', async () => {
    const project = await createProject(a);
    const list = (api: Api, key: string) => api.get('/v1/audiences/audience-segments', { key });
    // Both gateways have verified (and cached) both keys.
    for (const key of [project.keys.readOnly, project.keys.service])
      expect((await both((api) => list(api, key))).map((r) => r.status)).toEqual([200, 200]);

    const revocations: Array<[Api, Api, string, string]> = [
      [a.api, b.api, project.keyIds.readOnly, project.keys.readOnly],
      [b.api, a.api, project.keyIds.service, project.keys.service],
    ];
    for (const [revoker, other, keyId, key] of revocations) {
      const revoked = await revoker.delete(`/api/v1/projects/${project.id}/api-keys/${keyId}`, { key: project.keys.admin });
      expect(revoked.status).toBe(204);
      // The broadcast is on its way when the revoking request answers: a moment, not the cache's 30 s.
      await pollUntil(async () => (await list(other, key)).status === 401, {
        // 3 s: a loaded CI machine may take a second to hand over the message; the cache would take 30.
        timeoutMs: 3_000,
        intervalMs: 20,
        what: 'the other gateway to refuse the key',
      });
      expect((await list(revoker, key)).status).toBe(401);
    }
    // The keys not revoked still work on both.
    const keys = await both((api) => api.get(`/api/v1/projects/${project.id}/api-keys`, { key: project.keys.admin }));
    expect(keys.map((response) => response.status)).toEqual([200, 200]);
  });
});
