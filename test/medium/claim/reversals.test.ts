import type { Hex } from 'viem' with { 'resolution-mode': 'import' };
import type { ReverseInput } from '../../../services/claim/domain/reversal.service';
import { ConflictError, InvalidArgumentError, NotFoundError } from '../../../services/rules/errors';
import { TestClock } from '../../helpers/clock';
import { referredPair, type User } from './claim-check-fixtures';
import { newProjectOnChainWithTerms, useClaimDomainOnChain } from './claim-chain';
import { conversion, payOne } from './fixtures';

const KEYS: Hex[] = [`0x${'6d'.repeat(32)}`];
const TTL = 3_600;
const DAY_SECONDS = 86_400;
const KEY = 'key-service-reversals';

/**
 * Reversals over the claim domain and its real repositories (docs/claims.md#reversals): where the money is
 * decides what a reversal does (pending shrinks, an open check shrinks, a voucher already out becomes debt),
 * debt is paid first out of later earnings, a check holding only debt cannot close, a retry takes nothing
 * twice, and the books balance after every step.
 */
describe('reversals', () => {
  const clock = new TestClock();
  const { medium, harness } = useClaimDomainOnChain(clock, { keys: KEYS, ttlSeconds: TTL, confirmations: 2 });

  async function project() {
    await medium.syncClock(clock);
    return newProjectOnChainWithTerms(harness, medium, { trade: {}, held: { holdDays: 1 } });
  }

  const pay = (projectId: string, user: User, name: string, rewardBase: number) =>
    payOne(harness, projectId, { user, name, rewardBase: String(rewardBase) });

  const reverse = (projectId: string, input: Partial<ReverseInput> & { conversionId: string }) =>
    harness.domain.reversals.reverse(projectId, { reversalId: `refund-${input.conversionId}`, reason: 'refunded', reversedBy: KEY, ...input });

  /** The user's checks of a reason: status, amount and debt, oldest first. */
  async function checks(projectId: string, user: User, reason: string) {
    const { rows } = await harness.sql.query<{ status: string; amount: string; debt: string }>(
      `SELECT status, amount::text, debt::text FROM claim.claim_checks
       WHERE project_id = $1 AND identifier = $2 AND reason = $3 ORDER BY created_at, status`,
      [projectId, user.identifier, reason],
    );
    return rows;
  }

  async function closeOpen(projectId: string, user: User) {
    const { rows } = await harness.sql.query<{ id: string }>(
      "SELECT id FROM claim.claim_checks WHERE project_id = $1 AND identifier = $2 AND status = 'open'",
      [projectId, user.identifier],
    );
    return harness.domain.claimChecks.close(
      projectId,
      user,
      rows.map((row) => row.id),
    );
  }

  const balanced = async (projectId: string) => (await harness.domain.reconciliation.get(projectId, undefined)).balanced;

  it('shrinks the open check, takes a partial share exactly (floor), and a retry with the same body takes nothing twice', async () => {
    const { projectId } = await project();
    const { affiliate, user } = referredPair(harness, projectId);
    const id = await pay(projectId, user, 'trade', 1_000_003); // affiliate 100000, user 10000

    const first = await reverse(projectId, { conversionId: id, shareBps: 2_500 });
    expect(first.replayed).toBe(false);
    expect(first.reversal.movements.map((part) => [part.kind, part.amount, part.was, part.fromCheck, part.toDebt])).toEqual([
      ['affiliate_payout', 25_000n, 'available', 25_000n, 0n],
      ['end_user_payout', 2_500n, 'available', 2_500n, 0n],
    ]);
    expect(await checks(projectId, affiliate, 'affiliate')).toEqual([{ status: 'open', amount: '75000', debt: '0' }]);
    expect(await checks(projectId, user, 'end_user')).toEqual([{ status: 'open', amount: '7500', debt: '0' }]);

    // The same id and body: the first reversal, nothing taken twice.
    const again = await reverse(projectId, { conversionId: id, shareBps: 2_500 });
    expect(again.replayed).toBe(true);
    expect(again.reversal).toEqual(first.reversal);
    expect(await checks(projectId, affiliate, 'affiliate')).toEqual([{ status: 'open', amount: '75000', debt: '0' }]);

    // Another body under the id: refused, nothing changed.
    const reused: unknown = await reverse(projectId, { conversionId: id, shareBps: 2_000 }).catch((error: unknown) => error);
    expect(reused).toBeInstanceOf(ConflictError);
    expect(reused).toMatchObject({ code: 'REVERSAL_ID_REUSED' });

    // 3333 bps of 100000 is 33330; of 10000 is 3333 (floors).
    const second = await reverse(projectId, { conversionId: id, reversalId: 'second', shareBps: 3_333 });
    expect(second.reversal.movements.map((part) => part.amount)).toEqual([33_330n, 3_333n]);
    // 2500 + 3333 taken: 4167 bps remain, 4168 is refused.
    const exceeded: unknown = await reverse(projectId, { conversionId: id, reversalId: 'third', shareBps: 4_168 }).catch((error: unknown) => error);
    expect(exceeded).toMatchObject({ code: 'REVERSAL_SHARE_EXCEEDED', details: [{ field: 'share_bps', reason: 'must be at most 4167' }] });
    const rest = await reverse(projectId, { conversionId: id, reversalId: 'third', shareBps: 4_167 });
    // What is left is never more than the movement held: 100000 - 25000 - 33330 = 41670 = 4167 bps.
    expect(rest.reversal.movements.map((part) => part.amount)).toEqual([41_670n, 4_167n]);
    expect(await checks(projectId, affiliate, 'affiliate')).toEqual([{ status: 'open', amount: '0', debt: '0' }]);

    // Each movement keeps what it paid and records what came back.
    const paid = await harness.domain.ledger.conversion(projectId, id);
    expect(paid.movements.map((movement) => [movement.kind, movement.amount, movement.reversed])).toEqual([
      ['affiliate_payout', 100_000n, 100_000n],
      ['end_user_payout', 10_000n, 10_000n],
    ]);
    const detail = await harness.domain.reversals.ofConversion(projectId, id);
    expect(detail.map((reversal) => [reversal.reversalId, reversal.shareBps])).toEqual([
      [`refund-${id}`, 2_500],
      ['second', 3_333],
      ['third', 4_167],
    ]);
    const books = await harness.domain.reconciliation.get(projectId, undefined);
    expect(books.balanced).toBe(true);
    const affiliateLine = books.lines.find((line) => line.kind === 'affiliate_payout')!;
    expect([affiliateLine.earned, affiliateLine.reversed, affiliateLine.available, affiliateLine.inOpenChecks]).toEqual([100_000n, 100_000n, 0n, 0n]);
  }, 60_000);

  it('turns what a voucher already carried into debt, refuses to close a check holding only debt, and pays the debt first out of later earnings', async () => {
    const { projectId } = await project();
    const { affiliate, user } = referredPair(harness, projectId);
    const id = await pay(projectId, user, 'trade', 1_000_000); // affiliate 100000
    await closeOpen(projectId, affiliate);

    const { reversal } = await reverse(projectId, { conversionId: id });
    expect(reversal.movements.find((part) => part.kind === 'affiliate_payout')).toMatchObject({ amount: 100_000n, fromCheck: 0n, toDebt: 100_000n });
    // The closed check keeps its voucher; the debt is carried on a new open check that holds nothing.
    expect(await checks(projectId, affiliate, 'affiliate')).toEqual([
      { status: 'closed', amount: '100000', debt: '0' },
      { status: 'open', amount: '0', debt: '100000' },
    ]);
    expect((await harness.domain.claimChecks.totals(projectId, affiliate)).debt.map((total) => total.amount)).toEqual([100_000n]);
    expect(await balanced(projectId)).toBe(true);

    const refusal: unknown = await closeOpen(projectId, affiliate).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ConflictError);
    expect(refusal).toMatchObject({ code: 'CLAIM_CHECK_NOT_POSITIVE' });

    // A later payment of 60000 pays 60000 of the debt; the next of 70000 pays the last 40000 and leaves 30000 to claim.
    await pay(projectId, user, 'trade', 600_000);
    expect(await checks(projectId, affiliate, 'affiliate')).toEqual([
      { status: 'closed', amount: '100000', debt: '0' },
      { status: 'open', amount: '0', debt: '40000' },
    ]);
    await pay(projectId, user, 'trade', 700_000);
    expect(await checks(projectId, affiliate, 'affiliate')).toEqual([
      { status: 'closed', amount: '100000', debt: '0' },
      { status: 'open', amount: '30000', debt: '0' },
    ]);
    expect((await harness.domain.claimChecks.totals(projectId, affiliate)).debt).toEqual([]);
    expect(await balanced(projectId)).toBe(true);
  }, 60_000);

  it('pays the debt first out of an expired voucher credited back', async () => {
    const { projectId } = await project();
    const { affiliate, user } = referredPair(harness, projectId);
    const refunded = await pay(projectId, user, 'trade', 1_000_000); // affiliate 100000
    await closeOpen(projectId, affiliate);
    await pay(projectId, user, 'trade', 500_000); // affiliate 50000, in a second voucher of the same deadline's hour
    await closeOpen(projectId, affiliate);
    await reverse(projectId, { conversionId: refunded });
    expect((await harness.domain.claimChecks.totals(projectId, affiliate)).debt.map((total) => total.amount)).toEqual([100_000n]);

    // Both vouchers expire unredeemed: the 150000 they carried comes back to the open check, pays the 100000 of debt
    // first, and leaves 50000 to claim.
    await medium.chain.increaseTime(TTL + 10);
    await medium.chain.mine(2);
    await medium.syncClock(clock);
    await harness.domain.watcher.run(medium.chain.chainId);
    const after = await checks(projectId, affiliate, 'affiliate');
    expect(after.filter((check) => check.status === 'expired').map((check) => check.amount)).toEqual(expect.arrayContaining(['100000', '50000']));
    expect(after.filter((check) => check.status !== 'expired')).toEqual([{ status: 'open', amount: '50000', debt: '0' }]);
    expect((await harness.domain.claimChecks.totals(projectId, affiliate)).debt).toEqual([]);
    expect(await balanced(projectId)).toBe(true);
  }, 60_000);

  it('reduces a pending movement, which becomes available net of it when its hold passes', async () => {
    const { projectId } = await project();
    const { affiliate, user } = referredPair(harness, projectId);
    const id = await pay(projectId, user, 'held', 1_000_000); // affiliate 100000, held a day
    const { reversal } = await reverse(projectId, { conversionId: id, shareBps: 4_000 });
    expect(reversal.movements.map((part) => [part.kind, part.amount, part.was, part.claimCheckId])).toEqual([
      ['affiliate_payout', 40_000n, 'pending', null],
      ['end_user_payout', 4_000n, 'pending', null],
    ]);
    expect((await harness.domain.claimChecks.totals(projectId, affiliate)).pending.map((total) => total.amount)).toEqual([60_000n]);
    expect(await balanced(projectId)).toBe(true);

    clock.advance(DAY_SECONDS * 1_000 + 1_000);
    expect(await harness.domain.decisions.releaseDue(100)).toBe(2);
    expect(await checks(projectId, affiliate, 'affiliate')).toEqual([{ status: 'open', amount: '60000', debt: '0' }]);
    expect(await balanced(projectId)).toBe(true);
  }, 60_000);

  it('refuses an unknown or unpaid conversion and bad input, changing nothing', async () => {
    const { projectId } = await project();
    const { user } = referredPair(harness, projectId);
    const missing: unknown = await reverse(projectId, { conversionId: 'no-such-conversion' }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ code: 'CONVERSION_NOT_FOUND' });

    const input = conversion({ user, rewardBase: '1000', name: 'trade' });
    await harness.domain.conversions.submitMany(projectId, [input]);
    const unpaid: unknown = await reverse(projectId, { conversionId: input.id }).catch((error: unknown) => error);
    expect(unpaid).toMatchObject({ code: 'CONVERSION_NOT_PROCESSED' });

    for (const [bad, field] of [
      [{ shareBps: 0 }, 'share_bps'],
      [{ shareBps: 10_001 }, 'share_bps'],
      [{ shareBps: 1.5 }, 'share_bps'],
      [{ reason: '  ' }, 'reason'],
      [{ reversalId: '' }, 'reversal_id'],
      [{ reversalId: 'x'.repeat(256) }, 'reversal_id'],
    ] as const) {
      const refusal: unknown = await reverse(projectId, { conversionId: input.id, ...bad }).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(InvalidArgumentError);
      expect(refusal).toMatchObject({ details: [expect.objectContaining({ field })] });
    }
    const { rows } = await harness.sql.query('SELECT 1 FROM claim.conversion_reversals WHERE project_id = $1', [projectId]);
    expect(rows).toHaveLength(0);
  }, 60_000);
});
