import type { Hex } from 'viem' with { 'resolution-mode': 'import' };
import type { ReverseInput } from '../../../services/claim/domain/reversal.service';
import { TestClock } from '../../helpers/clock';
import { holdRowLock } from '../../helpers/faults/row-lock';
import { pollUntil } from '../../helpers/poll';
import { referredPair } from './claim-check-fixtures';
import { newProjectOnChain, useClaimDomainOnChain } from './claim-chain';
import { batchOf, conversion } from './fixtures';

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
    const { projectId, currencyId } = await newProjectOnChain(harness, medium);
    const rewards = { endUser: { bps: 100 }, affiliate: { bps: 1_000 }, tiers: [] };
    await harness.domain.terms.put(projectId, 'trade', { currencyId, ...rewards });
    await harness.domain.terms.put(projectId, 'vetted', { currencyId, ...rewards, requireApproval: true });
    return projectId;
  }

  async function pay(projectId: string, inputs: Array<ReturnType<typeof conversion>>): Promise<string[]> {
    await harness.domain.conversions.submitMany(projectId, inputs);
    await harness.domain.payouts.payBatch(await batchOf(harness, projectId, inputs[0]!.id));
    return inputs.map((input) => input.id);
  }

  const reverse = (projectId: string, input: Omit<ReverseInput, 'reversedBy' | 'reason'> & { reason?: string }) =>
    harness.domain.reversals.reverse(projectId, { reason: 'refunded', reversedBy: KEY, ...input });

  const rows = async <T extends Record<string, unknown>>(text: string, values: unknown[]) => (await harness.sql.query<T>(text, values)).rows;

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
       SELECT identifier, reason, coalesce(net.net, 0)::text AS net, coalesce(checks.out, 0)::text AS out, coalesce(checks.open, 0)::text AS open,
              coalesce(checks.debt, 0)::text AS debt,
              (SELECT total_amount::text FROM claim.leaderboard_totals lt WHERE lt.project_id = $1 AND lt.identifier = identifier AND lt.user_type = reason) AS board
       FROM net FULL JOIN checks USING (identifier, reason)`,
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
});
