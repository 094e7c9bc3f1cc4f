import { randomUUID } from 'node:crypto';
import { createCurrency, putTerms } from '../claim/claim-fixtures';
import { claimDomainOver } from '../helpers/claim-domain';
import { TestClock } from '../helpers/clock';
import { holdRowLock } from '../helpers/faults/row-lock';
import type { ServiceProcess } from '../helpers/faults/service-process';
import { useFaultStack } from '../helpers/faults/use-fault-stack';
import { createProject, randomEvmAddress } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';

const DAY_MS = 86_400_000;
/** What a `held` conversion pays its user, held a day. */
const HELD = 7n;
/** What a `now` conversion pays its user, at once. */
const AT_ONCE = 5n;
/** The release's transactions (RELEASE_BATCH). */
const RELEASE_BATCH = 1_000;

/**
 * The release of held movements through process deaths and Redis loss: the claim service is a real
 * process running `claim-release-held-movements` every 100 ms, killed with SIGKILL inside a release,
 * and Redis (a server of the test's own) is stopped while holds come due and started again empty.
 * Held movements are paid a day in the past (the payment's own code, in this process, with a clock a
 * day behind, while the service cannot pay them itself), so they are due at once. Afterwards every
 * due movement is released exactly once: every movement available, each check holding exactly its
 * movements, the leaderboards exactly the movements.
 */
describe('releasing held movements through process deaths and Redis loss', () => {
  const stack = useFaultStack({ services: ['audience', 'agency', 'claim'], ownRedis: true, serviceEnv: { CLAIM_RELEASE_EVERY_MS: '100' } });
  let claim: ServiceProcess;
  beforeAll(() => {
    claim = stack.service('claim');
  });

  const rows = async <T = Record<string, any>>(text: string, values: unknown[] = []) => (await stack.db.query(text, values)).rows as T[];
  const user = (identifier: string) => ({ identifier, identifierType: 'evm_address' });

  /** A project paying `held` conversions HELD base units after a day, and `now` conversions AT_ONCE. */
  async function heldProject() {
    const project = await createProject(stack.gateway);
    const currency = await createCurrency(stack.gateway, project);
    await putTerms(stack.gateway, project, 'held', { currency_id: currency.id, end_user: { fixed: String(HELD) }, hold_days: 1 });
    await putTerms(stack.gateway, project, 'now', { currency_id: currency.id, end_user: { fixed: String(AT_ONCE) } });
    return project;
  }

  /**
   * Pays conversions as the job does, a day and a minute ago (so their holds have just passed), in
   * batches of 1,000, one per user of `users` in turn; answers how many each user got. The claim
   * service must not pay them itself meanwhile (it is down, or Redis is): it would hold them a day from now.
   */
  async function payADayAgo(projectId: string, name: string, users: string[], count: number): Promise<Map<string, number>> {
    const past = await claimDomainOver(stack.databaseUrl, new TestClock(new Date(Date.now() - DAY_MS - 60_000)));
    const perUser = new Map<string, number>();
    try {
      for (let start = 0; start < count; start += 1_000) {
        const inputs = Array.from({ length: Math.min(1_000, count - start) }, (_, index) => {
          const identifier = users[(start + index) % users.length]!;
          perUser.set(identifier, (perUser.get(identifier) ?? 0) + 1);
          return { id: `held-${randomUUID()}`, name, user: user(identifier), rewardBase: '10000' };
        });
        await past.domain.conversions.submitMany(projectId, inputs);
        const [stored] = await rows<{ batch_id: string }>('SELECT batch_id FROM claim.conversions WHERE project_id = $1 AND id = $2', [
          projectId,
          inputs[0]!.id,
        ]);
        expect(await past.domain.payouts.payBatch(stored!.batch_id)).toEqual({ recorded: inputs.length, movements: inputs.length });
      }
    } finally {
      await past.close();
    }
    return perUser;
  }

  const statuses = async (projectId: string) =>
    (
      await rows<{ available: number; pending: number }>(
        `SELECT count(*) FILTER (WHERE status = 'available')::int AS available, count(*) FILTER (WHERE status = 'pending')::int AS pending
         FROM claim.movements WHERE project_id = $1`,
        [projectId],
      )
    )[0]!;

  /** Each check holds exactly its movements (net of what reversals took while they waited), and only available movements are in checks: true at every instant. */
  async function expectChecksHoldTheirMovements(projectId: string) {
    expect(
      await rows(
        `SELECT cc.id FROM claim.claim_checks cc WHERE cc.project_id = $1
           AND (cc.amount, cc.movements_count) <> (
             SELECT coalesce(sum(m.amount - coalesce((SELECT sum(r.amount) FROM claim.movement_reversals r WHERE r.movement_id = m.id), 0)), 0), count(*)::int
             FROM claim.movements m WHERE m.claim_check_id = cc.id)`,
        [projectId],
      ),
    ).toEqual([]);
    expect(
      await rows(`SELECT id FROM claim.movements WHERE project_id = $1 AND (status = 'available') <> (claim_check_id IS NOT NULL)`, [projectId]),
    ).toEqual([]);
  }

  /** Every movement released exactly once: per user, its check and its leaderboard entry hold exactly what it was paid. */
  async function expectReleasedOnce(projectId: string, paid: Map<string, bigint>, counts: Map<string, number>) {
    const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
    await pollUntil(async () => ((await statuses(projectId)).pending === 0 ? true : undefined), {
      timeoutMs: 60_000,
      intervalMs: 100,
      what: 'every held movement to be released',
    });
    expect(await statuses(projectId)).toEqual({ available: total, pending: 0 });
    await expectChecksHoldTheirMovements(projectId);
    const checks = await rows<{ identifier: string; amount: string; movements_count: number }>(
      "SELECT identifier, amount::text, movements_count FROM claim.claim_checks WHERE project_id = $1 AND status = 'open' ORDER BY identifier",
      [projectId],
    );
    expect(new Map(checks.map((check) => [check.identifier, [BigInt(check.amount), check.movements_count]]))).toEqual(
      new Map([...paid].map(([identifier, amount]) => [identifier, [amount, counts.get(identifier)!]])),
    );
    const board = await rows<{ identifier: string; total: string; attributions: number }>(
      "SELECT identifier, total_amount::text AS total, total_attributions::int AS attributions FROM claim.leaderboard_totals WHERE project_id = $1 AND user_type = 'end_user'",
      [projectId],
    );
    expect(new Map(board.map((entry) => [entry.identifier, [BigInt(entry.total), entry.attributions]]))).toEqual(
      new Map([...paid].map(([identifier, amount]) => [identifier, [amount, counts.get(identifier)!]])),
    );
    const [size] = await rows<{ entries: number }>(
      "SELECT entries::int FROM claim.leaderboard_sizes WHERE project_id = $1 AND user_type = 'end_user'",
      [projectId],
    );
    expect(size!.entries).toBe(paid.size);
  }

  it('a claim service killed inside a release: what committed stays released once, the rest is released after the restart', async () => {
    const project = await heldProject();
    const users = Array.from({ length: 40 }, () => randomEvmAddress());
    // The last user is paid at once first (its open check exists), and its one held movement comes last, after the others'.
    const blocker = users[users.length - 1]!;
    await claim.kill();
    const atOnce = await payADayAgo(project.id, 'now', [blocker], 1);
    const held = await payADayAgo(project.id, 'held', users.slice(0, -1), 3 * RELEASE_BATCH - 1);
    const last = await payADayAgo(project.id, 'held', [blocker], 1);
    // Another transaction holds the blocker's open check: the release's third transaction waits for it.
    const lock = await holdRowLock(
      stack.databaseUrl,
      "SELECT 1 FROM claim.claim_checks WHERE project_id = $1 AND identifier = $2 AND status = 'open' FOR UPDATE",
      [project.id, blocker],
    );
    try {
      await claim.restart();
      await pollUntil(
        async () => ((await statuses(project.id)).available === 1 + 2 * RELEASE_BATCH && (await lock.waiters()) > 0 ? true : undefined),
        {
          timeoutMs: 60_000,
          intervalMs: 20,
          what: 'two release transactions committed and the third waiting',
        },
      );
      await claim.kill();
      // Mid-release: two transactions of 1,000 released, the third not, and every sum holds.
      expect(await statuses(project.id)).toEqual({ available: 1 + 2 * RELEASE_BATCH, pending: RELEASE_BATCH });
      await expectChecksHoldTheirMovements(project.id);
    } finally {
      await lock.release();
    }
    await claim.restart();
    const counts = new Map<string, number>();
    const paid = new Map<string, bigint>();
    for (const [map, amount] of [
      [atOnce, AT_ONCE],
      [held, HELD],
      [last, HELD],
    ] as const) {
      for (const [identifier, count] of map) {
        counts.set(identifier, (counts.get(identifier) ?? 0) + count);
        paid.set(identifier, (paid.get(identifier) ?? 0n) + amount * BigInt(count));
      }
    }
    await expectReleasedOnce(project.id, paid, counts);
  }, 180_000);

  it('Redis lost while holds are due: once it is back (empty), the relay restores the schedule and each movement is released once', async () => {
    const project = await heldProject();
    const users = Array.from({ length: 25 }, () => randomEvmAddress());
    await stack.redis!.stop();
    // While Redis is away no job can run: the holds come due (paid a day ago) and wait.
    const held = await payADayAgo(project.id, 'held', users, 2_500);
    expect(await statuses(project.id)).toEqual({ available: 0, pending: 2_500 });
    await stack.redis!.startEmpty();
    await expectReleasedOnce(project.id, new Map([...held].map(([identifier, count]) => [identifier, HELD * BigInt(count)])), held);
    expect(claim.linesWith('held movements released').length).toBeGreaterThan(0);
  }, 180_000);

  it('Redis lost while holds are due, some reversed meanwhile: once it is back, each movement is released once, net of its reversal', async () => {
    const project = await heldProject();
    const users = Array.from({ length: 10 }, () => randomEvmAddress());
    await stack.redis!.stop();
    const held = await payADayAgo(project.id, 'held', users, 500);
    // While Redis is away, a refund takes half of every fifth conversion back (floor(7 × 5000 / 10000) = 3 of each): they wait net of it.
    const reversing = await claimDomainOver(stack.databaseUrl, new TestClock());
    const reversed = new Map<string, bigint>();
    try {
      const conversions = await rows<{ id: string }>('SELECT id FROM claim.conversions WHERE project_id = $1 ORDER BY id', [project.id]);
      for (const { id } of conversions.filter((_, index) => index % 5 === 0)) {
        const { reversal } = await reversing.domain.reversals.reverse(project.id, {
          conversionId: id,
          reversalId: `refund-${id}`,
          reason: 'refunded',
          shareBps: 5_000,
          reversedBy: 'key-faults',
        });
        for (const part of reversal.movements) {
          expect(part).toMatchObject({ amount: 3n, was: 'pending' });
          reversed.set(part.beneficiary.identifier, (reversed.get(part.beneficiary.identifier) ?? 0n) + part.amount);
        }
      }
    } finally {
      await reversing.close();
    }
    expect([...reversed.values()].reduce((sum, amount) => sum + amount, 0n)).toBe(300n);
    expect(await statuses(project.id)).toEqual({ available: 0, pending: 500 });
    await stack.redis!.startEmpty();
    await expectReleasedOnce(
      project.id,
      new Map([...held].map(([identifier, count]) => [identifier, HELD * BigInt(count) - (reversed.get(identifier) ?? 0n)])),
      held,
    );
  }, 180_000);
});
