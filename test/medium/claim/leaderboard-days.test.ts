import { sql } from 'kysely';
import { claimMigrations } from '../../../services/claim/migrations';
import { toPage } from '../../../services/rules/pagination';
import { type ClaimHarness, startClaimDomain } from '../../helpers/claim-domain';
import { batchOf, conversion, newProject, newUser, termsInput } from './fixtures';

const DAY = 86_400_000;

/**
 * The per-day leaderboard rows (migration 0015, docs/claims.md#leaderboards-over-a-date-range): kept in
 * the transactions that keep the all-time totals, on the UTC day a movement was written: a payment, a
 * held movement's release (still on its written day), a reversal (taken from the movement's day). A
 * board over every day always equals the all-time board.
 */
describe('leaderboard days (domain)', () => {
  let harness: ClaimHarness;
  beforeAll(async () => {
    harness = await startClaimDomain();
  });
  afterAll(() => harness.stop());

  /** A project whose `trade` conversions pay the end user 1% of reward_base, held for holdDays. */
  async function project(holdDays = 0) {
    const created = await newProject(harness);
    await harness.domain.terms.put(created.projectId, 'trade', termsInput(created.currencyId, { endUser: { bps: 100 }, holdDays }));
    return created;
  }

  async function pay(projectId: string, at: string, payments: Array<[{ identifier: string; identifierType: string }, bigint, string?]>) {
    harness.clock.set(at);
    const inputs = payments.map(([user, amount, id]) => conversion({ user, rewardBase: String(amount * 100n), ...(id ? { id } : {}) }));
    await harness.domain.conversions.submitMany(projectId, inputs);
    await harness.domain.payouts.payBatch(await batchOf(harness, projectId, inputs[0]!.id));
  }

  const days = async (projectId: string) =>
    (
      await harness.sql.query<{ day: string; identifier: string; total: string; attributions: number }>(
        `SELECT day::text, identifier, total_amount::text AS total, total_attributions::int AS attributions FROM claim.leaderboard_days
         WHERE project_id = $1 AND user_type = 'end_user' ORDER BY day, identifier COLLATE "C"`,
        [projectId],
      )
    ).rows.map((row) => [row.day, row.identifier, row.total, row.attributions]);

  /** Rows as `days` orders them: by day, then identifier. */
  const sorted = (rows: Array<[string, string, string, number]>) => [...rows].sort(([d1, i1], [d2, i2]) => (d1 + i1 < d2 + i2 ? -1 : 1));

  const board = async (projectId: string, range: { from?: string; to?: string }) =>
    (
      await harness.domain.ledger.leaderboard(
        projectId,
        { currencyAddress: undefined, chainId: undefined, userType: 'end_user', user: undefined, ...range },
        toPage({ page: 1, pageSize: 25 }),
      )
    ).records.map((entry) => [entry.rank, entry.user.identifier, entry.totalAmount, Number(entry.totalAttributions)]);

  it('writes each payment on its UTC day and sums a range of days per user; every day together is the all-time board', async () => {
    const { projectId } = await project();
    const [a, b] = [newUser(), newUser()];
    await pay(projectId, '2026-03-01T23:59:59.999Z', [
      [a, 700n],
      [b, 300n],
      [a, 5n],
    ]);
    await pay(projectId, '2026-03-02T00:00:00.000Z', [[b, 405n]]);
    expect(await days(projectId)).toEqual(
      sorted([
        ['2026-03-01', a.identifier, '705', 2],
        ['2026-03-01', b.identifier, '300', 1],
        ['2026-03-02', b.identifier, '405', 1],
      ]),
    );
    // A tie over both days (705 each), ranked by identifier.
    const [first, second] = [a.identifier, b.identifier].sort();
    expect(await board(projectId, { from: '2026-03-01', to: '2026-03-02' })).toEqual([
      [1, first, 705n, 2],
      [2, second, 705n, 2],
    ]);
    expect(await board(projectId, { to: '2026-03-01' })).toEqual([
      [1, a.identifier, 705n, 2],
      [2, b.identifier, 300n, 1],
    ]);
    expect(await board(projectId, { from: '2000-01-01' })).toEqual(await board(projectId, {}));
  });

  it('counts a held movement once released, on the day it was written, not the day of its release', async () => {
    const { projectId } = await project(2);
    const user = newUser();
    await pay(projectId, '2026-04-10T08:00:00.000Z', [[user, 1_000n]]);
    expect(await days(projectId)).toEqual([]);
    harness.clock.set(new Date(Date.parse('2026-04-10T08:00:00.000Z') + 2 * DAY));
    await harness.domain.decisions.releaseDue(1_000);
    expect(await days(projectId)).toEqual([['2026-04-10', user.identifier, '1000', 1]]);
    expect(await board(projectId, { from: '2026-04-12', to: '2026-04-12' })).toEqual([]);
    expect(await board(projectId, { from: '2026-04-10', to: '2026-04-10' })).toEqual([[1, user.identifier, 1_000n, 1]]);
  });

  it('takes a reversal of an available movement from that movement’s day, whenever it is reversed', async () => {
    const { projectId } = await project();
    const user = newUser();
    await pay(projectId, '2026-05-01T12:00:00.000Z', [[user, 1_000n, 'refunded-later']]);
    await pay(projectId, '2026-05-02T12:00:00.000Z', [[user, 2_000n]]);
    harness.clock.set('2026-05-09T12:00:00.000Z');
    await harness.domain.reversals.reverse(projectId, {
      conversionId: 'refunded-later',
      reversalId: 'r-40',
      reason: 'refunded',
      reversedBy: 'key',
      shareBps: 4_000,
    });
    expect(await days(projectId)).toEqual([
      ['2026-05-01', user.identifier, '600', 1],
      ['2026-05-02', user.identifier, '2000', 1],
    ]);
    expect(await board(projectId, { from: '2026-05-01', to: '2026-05-01' })).toEqual([[1, user.identifier, 600n, 1]]);
    expect(await board(projectId, { from: '2026-05-09' })).toEqual([]);
    const allTime = await board(projectId, {});
    expect(allTime).toEqual([[1, user.identifier, 2_600n, 2]]);
    expect(await board(projectId, { from: '2026-05-01', to: '2026-05-09' })).toEqual(allTime);
  });

  it('migration 0015 fills the per-day rows from the ledger exactly as the code keeps them (payments, a release, a reversal)', async () => {
    // Every kind of change, on this harness's own database: payments on two days, a partial reversal, a held movement released.
    const paid = await project();
    const [a, b] = [newUser(), newUser()];
    await pay(paid.projectId, '2026-06-01T10:00:00.000Z', [
      [a, 900n, 'migrated-reversed'],
      [b, 100n],
    ]);
    await pay(paid.projectId, '2026-06-02T10:00:00.000Z', [[a, 50n]]);
    await harness.domain.reversals.reverse(paid.projectId, {
      conversionId: 'migrated-reversed',
      reversalId: 'r-m',
      reason: 'refunded',
      reversedBy: 'key',
      shareBps: 5_000,
    });
    const held = await project(1);
    await pay(held.projectId, '2026-06-03T10:00:00.000Z', [[a, 70n]]);
    harness.clock.set('2026-06-04T10:00:00.000Z');
    await harness.domain.decisions.releaseDue(1_000);
    expect(await days(paid.projectId)).toEqual(
      sorted([
        ['2026-06-01', a.identifier, '450', 1],
        ['2026-06-01', b.identifier, '100', 1],
        ['2026-06-02', a.identifier, '50', 1],
      ]),
    );
    expect(await days(held.projectId)).toEqual([['2026-06-03', a.identifier, '70', 1]]);
    const all = async () =>
      (
        await harness.sql.query<{ row: string }>(
          `SELECT concat_ws('|', project_id, currency_id, user_type, day, identifier_type, identifier, total_amount, total_attributions) AS row
           FROM claim.leaderboard_days ORDER BY 1`,
        )
      ).rows.map((row) => row.row);
    const kept = await all();
    await sql`DROP TABLE leaderboard_days`.execute(harness.db);
    await claimMigrations['0015_leaderboard_days']!.up(harness.db);
    expect(await all()).toEqual(kept);
  });
});
