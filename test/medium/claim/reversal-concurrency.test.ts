import type { Hex } from 'viem' with { 'resolution-mode': 'import' };
import type { ReverseInput } from '../../../services/claim/domain/reversal.service';
import { ConflictError } from '../../../services/rules/errors';
import { TestClock } from '../../helpers/clock';
import { holdRowLock } from '../../helpers/faults/row-lock';
import { pollUntil } from '../../helpers/poll';
import { referredPair, type User } from './claim-check-fixtures';
import { newProjectOnChainWithTerms, useClaimDomainOnChain } from './claim-chain';
import { conversion, newUser, pay as payInputs } from './fixtures';

const KEYS: Hex[] = [`0x${'7c'.repeat(32)}`];
const TTL = 3_600;
const KEY = 'key-service-reversal-concurrency';
const WHOLE = 10_000n;

/**
 * Reversals under concurrency, over the claim domain and its real repositories: a reversal racing an
 * approval of the same movements, 1,000 concurrent reversals of 100 conversions (repeated ids, shares
 * that add up past the whole so some are refused), and reversals racing closes and payments of the same
 * users. Each reversal is applied once, no conversion gives back more than it paid, and every figure
 * (checks, debt, leaderboards, the books) is exactly what the reversals that were applied say.
 */
describe('reversals under concurrency', () => {
  const clock = new TestClock();
  const { medium, harness } = useClaimDomainOnChain(clock, { keys: KEYS, ttlSeconds: TTL, confirmations: 2 });

  async function project() {
    await medium.syncClock(clock);
    return (await newProjectOnChainWithTerms(harness, medium, { trade: {}, vetted: { requireApproval: true } })).projectId;
  }

  async function pay(projectId: string, inputs: Array<ReturnType<typeof conversion>>): Promise<string[]> {
    await payInputs(harness, projectId, inputs);
    return inputs.map((input) => input.id);
  }

  const reverse = (projectId: string, input: Omit<ReverseInput, 'reversedBy' | 'reason'> & { reason?: string }) =>
    harness.domain.reversals.reverse(projectId, { reason: 'refunded', reversedBy: KEY, ...input });

  const rows = async <T extends Record<string, unknown>>(text: string, values: unknown[]) => (await harness.sql.query<T>(text, values)).rows;

  async function openIds(projectId: string, user: User): Promise<string[]> {
    return (
      await rows<{ id: string }>("SELECT id FROM claim.claim_checks WHERE project_id = $1 AND identifier = $2 AND status = 'open'", [
        projectId,
        user.identifier,
      ])
    ).map((row) => row.id);
  }

  /**
   * The figures the reversals applied must give, per user and reason, recomputed from the rows: every
   * movement part is floor(amount × share / 10000) of an applied reversal, no movement gives back more
   * than it paid; with no voucher expired, the open checks net of debt hold the available movements net
   * of their reversals less the vouchers out, so the open checks hold max(0, that) and carry
   * max(0, −that) as debt; the leaderboards hold the available movements net; the books balance.
   */
  async function expectExactFigures(projectId: string) {
    const parts = await rows<{ movement_id: string; amount: string; gross: string; share_bps: number }>(
      `SELECT r.movement_id::text, r.amount::text, m.amount::text AS gross, h.share_bps
       FROM claim.movement_reversals r JOIN claim.movements m ON m.id = r.movement_id
       JOIN claim.conversion_reversals h ON h.project_id = r.project_id AND h.reversal_id = r.reversal_id
       WHERE r.project_id = $1`,
      [projectId],
    );
    for (const part of parts) expect(BigInt(part.amount)).toBe((BigInt(part.gross) * BigInt(part.share_bps)) / WHOLE);
    expect(
      await rows(
        `SELECT m.id FROM claim.movements m JOIN claim.movement_reversals r ON r.movement_id = m.id
         WHERE m.project_id = $1 GROUP BY m.id HAVING sum(r.amount) > min(m.amount)`,
        [projectId],
      ),
    ).toEqual([]);
    const keys = await rows<{ identifier: string; reason: string; net: string; out: string; open: string; debt: string; board: string | null }>(
      `WITH net AS (
         SELECT m.identifier, CASE m.kind WHEN 'affiliate_payout' THEN 'affiliate' WHEN 'end_user_payout' THEN 'end_user' ELSE 'agency' END AS reason,
                sum(m.amount - coalesce((SELECT sum(r.amount) FROM claim.movement_reversals r WHERE r.movement_id = m.id), 0)) AS net
         FROM claim.movements m WHERE m.project_id = $1 AND m.status = 'available' GROUP BY 1, 2
       ), checks AS (
         SELECT identifier, reason, coalesce(sum(amount) FILTER (WHERE status <> 'open'), 0) AS out,
                coalesce(sum(amount) FILTER (WHERE status = 'open'), 0) AS open, sum(debt) AS debt
         FROM claim.claim_checks WHERE project_id = $1 GROUP BY 1, 2
       )
       SELECT k.identifier, k.reason, coalesce(k.net, 0)::text AS net, coalesce(k.out, 0)::text AS out, coalesce(k.open, 0)::text AS open,
              coalesce(k.debt, 0)::text AS debt,
              (SELECT lt.total_amount::text FROM claim.leaderboard_totals lt
               WHERE lt.project_id = $1 AND lt.identifier = k.identifier AND lt.user_type = k.reason) AS board
       FROM (SELECT identifier, reason, net.net, checks.out, checks.open, checks.debt FROM net FULL JOIN checks USING (identifier, reason)) AS k`,
      [projectId],
    );
    for (const key of keys) {
      const owed = BigInt(key.net) - BigInt(key.out);
      expect({ key: `${key.identifier} ${key.reason}`, open: BigInt(key.open), debt: BigInt(key.debt) }).toEqual({
        key: `${key.identifier} ${key.reason}`,
        open: owed > 0n ? owed : 0n,
        debt: owed < 0n ? -owed : 0n,
      });
      if (key.board !== null) expect(BigInt(key.board)).toBe(BigInt(key.net));
    }
    expect((await harness.domain.reconciliation.get(projectId, undefined)).balanced).toBe(true);
  }

  it('a reversal committing while an approval of the same movements waits for them: the approval pays them net of it', async () => {
    const projectId = await project();
    const { affiliate, user } = referredPair(harness, projectId);
    const [id] = await pay(projectId, [conversion({ user, rewardBase: '1000000', name: 'vetted' })]); // affiliate 100000, user 10000, waiting
    // The reversal stops at its event (after it locked the movements and wrote its rows) until the lock goes.
    const lock = await holdRowLock(harness.databaseUrl, 'LOCK TABLE claim.outbox IN SHARE MODE');
    let reversal: ReturnType<typeof reverse> | undefined;
    let approval: Promise<unknown> | undefined;
    try {
      reversal = reverse(projectId, { conversionId: id!, reversalId: 'refund-40', shareBps: 4_000 });
      await pollUntil(async () => (await lock.waiters()) === 1, { timeoutMs: 10_000, intervalMs: 10, what: 'the reversal to wait at its event' });
      // The approval's read starts now, before the reversal commits, and waits for the movements the reversal holds.
      approval = harness.domain.decisions.approve(projectId, [id!], undefined, KEY);
      await pollUntil(async () => (await lock.waiters()) === 2, { timeoutMs: 10_000, intervalMs: 10, what: 'the approval to wait for the reversal' });
    } finally {
      await lock.release();
    }
    expect((await reversal).reversal.movements.map((part) => [part.amount, part.was])).toEqual([
      [40_000n, 'pending'],
      [4_000n, 'pending'],
    ]);
    await approval;
    const open = await rows<{ identifier: string; amount: string }>(
      "SELECT identifier, amount::text FROM claim.claim_checks WHERE project_id = $1 AND status = 'open' ORDER BY reason",
      [projectId],
    );
    expect(open).toEqual([
      { identifier: affiliate.identifier, amount: '60000' },
      { identifier: user.identifier, amount: '6000' },
    ]);
    await expectExactFigures(projectId);
  }, 60_000);

  it('a reversal waiting while an approval makes the same movements available: it takes them out of the open check, as they now are', async () => {
    const projectId = await project();
    const { affiliate, user } = referredPair(harness, projectId);
    await pay(projectId, [conversion({ user, rewardBase: '500000' })]); // both have an open check already
    const [id] = await pay(projectId, [conversion({ user, rewardBase: '1000000', name: 'vetted' })]); // affiliate 100000, user 10000, waiting
    // The approval stops at the open checks (after it locked the movements) until the lock goes.
    const lock = await holdRowLock(harness.databaseUrl, "SELECT 1 FROM claim.claim_checks WHERE project_id = $1 AND status = 'open' FOR UPDATE", [
      projectId,
    ]);
    let approval: Promise<unknown> | undefined;
    let reversal: ReturnType<typeof reverse> | undefined;
    try {
      approval = harness.domain.decisions.approve(projectId, [id!], undefined, KEY);
      await pollUntil(async () => (await lock.waiters()) === 1, { timeoutMs: 10_000, intervalMs: 10, what: 'the approval to wait at the checks' });
      // The reversal's read starts now, while the movements are pending, and waits for them.
      reversal = reverse(projectId, { conversionId: id!, reversalId: 'refund-after-approval', shareBps: 4_000 });
      await pollUntil(async () => (await lock.waiters()) === 2, { timeoutMs: 10_000, intervalMs: 10, what: 'the reversal to wait for the approval' });
    } finally {
      await lock.release();
    }
    await approval;
    // The movements were available in open checks when the reversal got them: it took from those checks, no debt.
    expect((await reversal).reversal.movements.map((part) => [part.amount, part.was, part.fromCheck, part.toDebt])).toEqual([
      [40_000n, 'available', 40_000n, 0n],
      [4_000n, 'available', 4_000n, 0n],
    ]);
    const open = await rows<{ identifier: string; amount: string; debt: string }>(
      "SELECT identifier, amount::text, debt::text FROM claim.claim_checks WHERE project_id = $1 AND status = 'open' ORDER BY reason",
      [projectId],
    );
    expect(open).toEqual([
      { identifier: affiliate.identifier, amount: '110000', debt: '0' },
      { identifier: user.identifier, amount: '11000', debt: '0' },
    ]);
    await expectExactFigures(projectId);
  }, 60_000);

  /** Each request's answer: the reversal (and whether it replayed one) or the refusal's code; any other error fails the test. */
  type Answer = { ok: true; replayed: boolean; reversal: unknown } | { ok: false; code: string };
  async function answerOf(attempt: ReturnType<typeof reverse>): Promise<Answer> {
    try {
      const { reversal, replayed } = await attempt;
      return { ok: true, replayed, reversal };
    } catch (error) {
      if (error instanceof ConflictError) return { ok: false, code: error.code };
      throw error;
    }
  }

  it('1,000 concurrent reversals of 100 conversions: each reversal applied once, shares never past the whole, every figure exact', async () => {
    const projectId = await project();
    const { affiliate, user: first } = referredPair(harness, projectId);
    const users = [first, ...Array.from({ length: 9 }, () => newUser())];
    const ids = await pay(
      projectId,
      Array.from({ length: 100 }, (_, index) => conversion({ user: users[index % users.length]!, rewardBase: String(1_000_000 + 7_919 * index) })),
    );
    // Vouchers out for the affiliate and every other user (what they carried becomes debt), then a payment each (debt is paid from it).
    for (const who of [affiliate, ...users.filter((_, index) => index % 2 === 0)]) {
      await harness.domain.claimChecks.close(projectId, who, await openIds(projectId, who));
    }
    await pay(
      projectId,
      users.map((user) => conversion({ user, rewardBase: '3000000' })),
    );

    // Per conversion, 10 requests: `a` three times and once under another reason (REVERSAL_ID_REUSED once `a` is in), `b` twice,
    // four more once each; the shares add up past 10000 however they are ordered, so some are refused.
    const requests = ids.flatMap((conversionId, index) => {
      const one = (reversalId: string, shareBps: number, reason = 'refunded') => ({
        conversionId,
        reversalId: `${conversionId}-${reversalId}`,
        shareBps,
        reason,
      });
      return [
        one('a', 3_000 + (index % 7)),
        one('a', 3_000 + (index % 7)),
        one('a', 3_000 + (index % 7)),
        one('a', 3_000 + (index % 7), 'chargeback'),
        one('b', 2_500),
        one('b', 2_500),
        one('c', 2_500 - index),
        one('d', 1_500),
        one('e', 2_000),
        one('f', 1),
      ];
    });
    expect(requests).toHaveLength(1_000);
    // A fixed shuffle, so that the requests of one conversion arrive apart and in another order each time.
    const order = requests.map((request, index) => ({ request, rank: (index * 7_919) % 1_009 })).sort((x, y) => x.rank - y.rank);
    // Spread over ten processes as the service's replicas would take them, each running four at a time (twice its pool), all
    // the while: 40 reversals in flight at every moment until the last, ten of each conversion among the same few hundred.
    const processes = Array.from({ length: 10 }, () => harness.anotherProcess());
    const answers: Answer[] = new Array(order.length);
    let next = 0;
    const worker = async (domain: (typeof processes)[number]) => {
      for (let index = next++; index < order.length; index = next++) {
        answers[index] = await answerOf(domain.reversals.reverse(projectId, { reversedBy: KEY, ...order[index]!.request }));
      }
    };
    await Promise.all(processes.flatMap((domain) => Array.from({ length: 4 }, () => worker(domain))));

    const applied = await rows<{ conversion_id: string; reversal_id: string; share_bps: number; reason: string }>(
      'SELECT conversion_id, reversal_id, share_bps, reason FROM claim.conversion_reversals WHERE project_id = $1',
      [projectId],
    );
    const appliedById = new Map(applied.map((row) => [row.reversal_id, row]));
    const appliedShare = new Map<string, number>();
    for (const row of applied) appliedShare.set(row.conversion_id, (appliedShare.get(row.conversion_id) ?? 0) + row.share_bps);
    for (const [conversionId, share] of appliedShare) expect({ conversionId, share: share <= 10_000 }).toEqual({ conversionId, share: true });
    const refused = answers.filter((answer) => !answer.ok).length;
    expect(refused).toBeGreaterThanOrEqual(100);

    const byId = new Map<string, Array<{ request: (typeof requests)[number]; answer: Answer }>>();
    order.forEach(({ request }, index) =>
      byId.set(request.reversalId, [...(byId.get(request.reversalId) ?? []), { request, answer: answers[index]! }]),
    );
    for (const [reversalId, asked] of byId) {
      const row = appliedById.get(reversalId);
      if (!row) {
        // Refused whole, and rightly: its share did not fit beside those applied (shares only grow).
        for (const { request, answer } of asked) {
          expect({ reversalId, answer }).toEqual({ reversalId, answer: { ok: false, code: 'REVERSAL_SHARE_EXCEEDED' } });
          expect(appliedShare.get(request.conversionId)! + request.shareBps).toBeGreaterThan(10_000);
        }
        continue;
      }
      // Applied once: every request of its body answered it (one made it, the others replayed it); another body under its id was refused.
      const same = asked.filter(({ request }) => request.reason === row.reason && request.shareBps === row.share_bps);
      expect(same.map(({ answer }) => answer.ok && !answer.replayed).filter(Boolean)).toHaveLength(1);
      const made = same.find(({ answer }) => answer.ok && !answer.replayed)!.answer as { reversal: unknown };
      for (const { answer } of same) expect(answer).toEqual({ ok: true, replayed: answer.ok && answer.replayed, reversal: made.reversal });
      for (const { answer } of asked.filter((one) => !same.includes(one))) expect(answer).toEqual({ ok: false, code: 'REVERSAL_ID_REUSED' });
    }

    // Each applied reversal took from every movement of its conversion whose share is not 0, and produced one event.
    const [counts] = await rows<{ parts: number; expected: number; events: number; distinct_events: number }>(
      `SELECT (SELECT count(*)::int FROM claim.movement_reversals WHERE project_id = $1) AS parts,
              (SELECT count(*)::int FROM claim.conversion_reversals h JOIN claim.movements m ON m.project_id = h.project_id AND m.conversion_id = h.conversion_id
               WHERE h.project_id = $1 AND m.amount * h.share_bps / 10000 >= 1) AS expected,
              (SELECT count(*)::int FROM claim.outbox WHERE project_id = $1 AND type = 'claim.conversion.reversed') AS events,
              (SELECT count(DISTINCT payload->>'reversal_id')::int FROM claim.outbox WHERE project_id = $1 AND type = 'claim.conversion.reversed') AS distinct_events`,
      [projectId],
    );
    expect(counts).toEqual({ parts: counts!.expected, expected: counts!.expected, events: applied.length, distinct_events: applied.length });
    await expectExactFigures(projectId);
    // Some of the affiliate's amounts were out in a voucher: the reversals left it debt, or its new payment paid it.
    const [affiliateRow] = await rows<{ to_debt: string }>(
      `SELECT coalesce(sum(r.to_debt), 0)::text AS to_debt FROM claim.movement_reversals r JOIN claim.movements m ON m.id = r.movement_id
       WHERE r.project_id = $1 AND m.identifier = $2`,
      [projectId, affiliate.identifier],
    );
    expect(BigInt(affiliateRow!.to_debt)).toBeGreaterThan(0n);
  }, 240_000);

  it('reversals racing closes and payments of the same users: debt and what is open exact, books balanced, no error but the refusals', async () => {
    const projectId = await project();
    const { affiliate, user: first } = referredPair(harness, projectId);
    const users = [first, ...Array.from({ length: 3 }, () => newUser())];
    const paid = await pay(
      projectId,
      Array.from({ length: 40 }, (_, index) => conversion({ user: users[index % users.length]!, rewardBase: String(500_000 + 104_729 * index) })),
    );
    const everyone = [affiliate, ...users];
    const vouchers: bigint[] = [];
    for (let round = 0; round < 4; round += 1) {
      // This round's share of every fourth conversion (by round), each request sent twice (the second replays or finds it made).
      const reversals = paid
        .filter((_, index) => (index + round) % 3 !== 0)
        .flatMap((conversionId, index) => {
          const input = { conversionId, reversalId: `${conversionId}-round-${round}`, shareBps: 1_000 + ((index * 379) % 1_500) };
          return [answerOf(reverse(projectId, input)), answerOf(reverse(projectId, input))];
        });
      const closes = await Promise.all(everyone.map((who) => openIds(projectId, who)));
      const closing = everyone.flatMap((who, index) =>
        [0, 1].map(() =>
          harness.domain.claimChecks.close(projectId, who, closes[index]!).then(
            (closed) => closed.map((row) => row.amount),
            (error: unknown) => {
              // A check the reversals left holding nothing (only debt) is refused whole; nothing else may fail.
              if (error instanceof ConflictError && error.code === 'CLAIM_CHECK_NOT_POSITIVE') return [];
              throw error;
            },
          ),
        ),
      );
      const payments = [
        pay(
          projectId,
          users.map((user, index) => conversion({ user, rewardBase: String(200_000 * (index + round + 1)) })),
        ),
        pay(projectId, [conversion({ user: first, rewardBase: String(900_000 + round) })]),
      ];
      const [reversed, closed] = await Promise.all([Promise.all(reversals), Promise.all(closing), Promise.all(payments)]);
      for (const answer of reversed) expect(answer).toMatchObject({ ok: true });
      for (const amount of closed.flat()) {
        // No voucher pays nothing, or more than is available net of debt (expectExactFigures: open - debt = net - out).
        expect(amount).toBeGreaterThan(0n);
        vouchers.push(amount);
      }
      await expectExactFigures(projectId);
    }
    expect(vouchers.length).toBeGreaterThan(0);
    // No check ever closed carrying debt, and what a voucher says is what its check holds.
    expect(
      await rows(
        `SELECT cc.id FROM claim.claim_checks cc LEFT JOIN claim.vouchers v ON v.claim_check_id = cc.id
         WHERE cc.project_id = $1 AND cc.status <> 'open' AND (cc.debt <> 0 OR v.amount IS DISTINCT FROM cc.amount OR cc.amount <= 0)`,
        [projectId],
      ),
    ).toEqual([]);
    const [debt] = await rows<{ debt: string }>(
      'SELECT coalesce(sum(to_debt), 0)::text AS debt FROM claim.movement_reversals WHERE project_id = $1',
      [projectId],
    );
    expect(BigInt(debt!.debt)).toBeGreaterThan(0n);
  }, 240_000);
});
