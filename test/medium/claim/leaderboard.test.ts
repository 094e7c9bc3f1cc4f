import { randomUUID } from 'node:crypto';
import type { IdentifierType } from '../../../services/rules/identifiers';
import { toPage } from '../../../services/rules/pagination';
import type { MovementKind } from '../../../services/claim/domain/vocabulary';
import { LedgerService } from '../../../services/claim/domain/ledger.service';
import { CurrencyRepository } from '../../../services/claim/repositories/currency.repository';
import { LeaderboardRepository } from '../../../services/claim/repositories/leaderboard.repository';
import { LedgerRepository } from '../../../services/claim/repositories/ledger.repository';
import { MovementRepository } from '../../../services/claim/repositories/movement.repository';
import { type ClaimHarness, startClaimDomain } from '../../helpers/claim-domain';
import { evmAddress, randomEvmAddress } from '../../helpers/evm-addresses';
import { newProject } from './fixtures';

/**
 * The payouts leaderboard (LedgerService.leaderboard): running totals written with each movement,
 * affiliate_payout and end_user_payout only (never agency_payout), ranked by total with ties by
 * identifier, its size kept beside it, one currency at a time.
 */
describe('payouts leaderboard (domain)', () => {
  let harness: ClaimHarness;
  let ledger: LedgerRepository;
  beforeAll(async () => {
    harness = await startClaimDomain();
    ledger = new LedgerRepository(harness.db);
  });
  afterAll(() => harness.stop());

  const evm = (n: number) => ({ identifier: evmAddress(n), identifierType: 'evm_address' as IdentifierType });

  /** Writes movements the way the job does (one recording transaction), for conversions stored first. */
  async function pay(projectId: string, currencyId: string, payments: Array<[MovementKind, number, bigint]>) {
    const ids = payments.map(() => `c-${randomUUID()}`);
    await harness.domain.conversions.submitMany(
      projectId,
      ids.map((id) => ({ id, name: 'trade', user: evm(999_999) })),
    );
    const batch = (await harness.sql.query('SELECT batch_id FROM claim.conversions WHERE project_id = $1 AND id = $2', [projectId, ids[0]])).rows[0]
      .batch_id;
    await ledger.record(
      projectId,
      batch,
      payments.map(([kind, user, amount], index) => ({
        id: ids[index]!,
        status: 'processed',
        failureReason: null,
        currencyId,
        attribution: null,
        movements: [{ kind, beneficiary: evm(user), amount }],
        eligibility: null,
        pendingReason: null,
        review: null,
        holdDays: 0,
        caps: null,
      })),
      harness.clock.now(),
      () => [],
    );
  }

  const board = (
    projectId: string,
    fields: {
      userType?: 'affiliate' | 'end_user';
      currencyAddress?: string;
      chainId?: string;
      user?: { identifier: string; identifierType: string };
    } = {},
    page = 1,
    pageSize = 25,
  ) =>
    harness.domain.ledger.leaderboard(
      projectId,
      { currencyAddress: fields.currencyAddress, chainId: fields.chainId, userType: fields.userType ?? 'affiliate', user: fields.user },
      toPage({ page, pageSize }),
    );
  const ranks = (page: Awaited<ReturnType<typeof board>>) =>
    page.records.map((entry) => [entry.rank, entry.user.identifier, entry.totalAmount, Number(entry.totalAttributions)]);

  it('ranks affiliates by their total, ties by identifier, counting attributions, and never counts agency_payout', async () => {
    const { projectId, currencyId } = await newProject(harness);
    await pay(projectId, currencyId, [
      ['affiliate_payout', 3, 500n],
      ['affiliate_payout', 1, 200n],
      ['affiliate_payout', 2, 700n],
      ['affiliate_payout', 1, 300n],
      ['agency_payout', 4, 1_000_000n],
      ['agency_payout', 1, 1_000_000n],
      ['end_user_payout', 5, 50n],
    ]);
    const page = await board(projectId);
    expect(ranks(page)).toEqual([
      [1, evmAddress(2), 700n, 1],
      [2, evmAddress(1), 500n, 2],
      [3, evmAddress(3), 500n, 1],
    ]);
    expect(page.total).toBe(3);
    expect(page.calculatedAt).toEqual(harness.clock.now());
    expect(ranks(await board(projectId, { userType: 'end_user' }))).toEqual([[1, evmAddress(5), 50n, 1]]);
  });

  it('pages through a board: ranks continue across pages and the size is the whole board', async () => {
    const { projectId, currencyId } = await newProject(harness);
    await pay(
      projectId,
      currencyId,
      Array.from({ length: 30 }, (_, i) => ['end_user_payout', 100 + i, BigInt(1_000 - (i % 10))] as [MovementKind, number, bigint]),
    );
    const first = await board(projectId, { userType: 'end_user' }, 1, 7);
    const second = await board(projectId, { userType: 'end_user' }, 2, 7);
    const last = await board(projectId, { userType: 'end_user' }, 5, 7);
    expect(first.total).toBe(30);
    expect(ranks(first).map(([rank]) => rank)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(ranks(second).map(([rank]) => rank)).toEqual([8, 9, 10, 11, 12, 13, 14]);
    expect(ranks(last).map(([rank]) => rank)).toEqual([29, 30]);
    // 1,000 is earned by users 100, 110 and 120: ties ranked by identifier.
    expect(
      ranks(first)
        .slice(0, 3)
        .map(([, identifier]) => identifier),
    ).toEqual([evmAddress(100), evmAddress(110), evmAddress(120)]);
    expect((await board(projectId, { userType: 'end_user' }, 6, 7)).records).toEqual([]);
  });

  it('answers one user’s entry with its rank among everyone, and nothing for a user not on the board', async () => {
    const { projectId, currencyId } = await newProject(harness);
    await pay(projectId, currencyId, [
      ['affiliate_payout', 10, 100n],
      ['affiliate_payout', 11, 300n],
      ['affiliate_payout', 12, 100n],
      ['affiliate_payout', 13, 50n],
    ]);
    expect(ranks(await board(projectId, { user: evm(12) }))).toEqual([[3, evmAddress(12), 100n, 1]]);
    expect(ranks(await board(projectId, { user: evm(13) }))).toEqual([[4, evmAddress(13), 50n, 1]]);
    expect(
      ranks(await board(projectId, { user: { identifier: evmAddress(11).toUpperCase().replace('0X', '0x'), identifierType: 'evm_address' } })),
    ).toEqual([[1, evmAddress(11), 300n, 1]]);
    const absent = await board(projectId, { user: evm(14) });
    expect(absent).toMatchObject({ records: [], total: 0 });
  });

  it('keeps one board per currency, chosen by address (and chain, where the address is on several)', async () => {
    const { projectId, currencyId } = await newProject(harness);
    const [ethereum, base] = await Promise.all(
      ['1', '8453'].map((chainId) =>
        harness.domain.currencies.create(projectId, {
          chainId,
          address: '0x0000000000000000000000000000000000000000',
          name: 'ETH',
          decimals: 18,
          type: 'native',
        }),
      ),
    );
    await pay(projectId, ethereum!.id, [['affiliate_payout', 1, 10n]]);
    await pay(projectId, base!.id, [['affiliate_payout', 2, 20n]]);
    await pay(projectId, currencyId, [['affiliate_payout', 3, 30n]]);
    const native = '0x0000000000000000000000000000000000000000';
    expect(ranks(await board(projectId, { currencyAddress: native, chainId: '8453' }))).toEqual([[1, evmAddress(2), 20n, 1]]);
    expect(ranks(await board(projectId, { currencyAddress: native, chainId: '1' }))).toEqual([[1, evmAddress(1), 10n, 1]]);
    await expect(board(projectId, { currencyAddress: native })).rejects.toMatchObject({
      code: 'CURRENCY_AMBIGUOUS',
      details: [{ field: 'chain_id' }],
    });
    await expect(board(projectId)).rejects.toMatchObject({ code: 'CURRENCY_AMBIGUOUS', details: [{ field: 'currency_address' }] });
    await expect(board(projectId, { currencyAddress: randomEvmAddress() })).rejects.toMatchObject({ kind: 'not_found', code: 'CURRENCY_NOT_FOUND' });
    await expect(board(projectId, { currencyAddress: '0x1234' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'currency_address' }],
    });
    await expect(board(projectId, { currencyAddress: native, chainId: '0' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'chain_id' }],
    });
  });

  it('uses the project’s one currency when the address is left out, matching it in any letter case', async () => {
    const projectId = randomUUID();
    const currency = await harness.domain.currencies.create(projectId, {
      chainId: '10',
      address: `0x${'AB'.repeat(20)}`,
      name: 'OP',
      decimals: 18,
      type: 'erc20',
    });
    await pay(projectId, currency.id, [['affiliate_payout', 1, 10n]]);
    expect((await board(projectId)).currency.id).toBe(currency.id);
    expect((await board(projectId, { currencyAddress: `0x${'Ab'.repeat(20)}` })).currency.id).toBe(currency.id);
  });

  it('answers concurrent readers of one page alike, and the next reader after a payment sees it (nothing kept between reads)', async () => {
    const { projectId, currencyId } = await newProject(harness);
    await pay(projectId, currencyId, [
      ['affiliate_payout', 1, 10n],
      ['affiliate_payout', 2, 20n],
    ]);
    const pages = await Promise.all(Array.from({ length: 50 }, () => board(projectId)));
    for (const page of pages)
      expect(ranks(page)).toEqual([
        [1, evmAddress(2), 20n, 1],
        [2, evmAddress(1), 10n, 1],
      ]);
    await pay(projectId, currencyId, [['affiliate_payout', 1, 15n]]);
    expect(ranks(await board(projectId))).toEqual([
      [1, evmAddress(1), 25n, 2],
      [2, evmAddress(2), 20n, 1],
    ]);
  });

  it('with CLAIM_LEADERBOARD_CACHE_MS, answers a page read less than that long ago (saying when it was read), and reads it again after', async () => {
    const { projectId, currencyId } = await newProject(harness);
    const cached = new LedgerService(
      new MovementRepository(harness.db),
      new LeaderboardRepository(harness.db),
      new CurrencyRepository(harness.db),
      harness.clock,
      1_000,
    );
    const read = (page = 1) =>
      cached.leaderboard(
        projectId,
        { currencyAddress: undefined, chainId: undefined, userType: 'affiliate', user: undefined },
        toPage({ page, pageSize: 25 }),
      );
    await pay(projectId, currencyId, [['affiliate_payout', 1, 10n]]);
    const first = await read();
    expect(ranks(first)).toEqual([[1, evmAddress(1), 10n, 1]]);
    const readAt = harness.clock.now();
    expect(first.calculatedAt).toEqual(readAt);

    await pay(projectId, currencyId, [['affiliate_payout', 2, 20n]]);
    harness.clock.advance(999);
    const kept = await read();
    expect(ranks(kept)).toEqual([[1, evmAddress(1), 10n, 1]]);
    expect(kept.calculatedAt).toEqual(readAt);
    // Another page of the same board is its own read.
    expect((await read(2)).total).toBe(2);
    // A user's own entry is never kept.
    expect(
      (
        await cached.leaderboard(projectId, { currencyAddress: undefined, chainId: undefined, userType: 'affiliate', user: evm(2) }, toPage({}))
      ).records.map((entry) => entry.rank),
    ).toEqual([1]);

    harness.clock.advance(1);
    const fresh = await read();
    expect(ranks(fresh)).toEqual([
      [1, evmAddress(2), 20n, 1],
      [2, evmAddress(1), 10n, 1],
    ]);
    expect(fresh.calculatedAt).toEqual(harness.clock.now());
  });

  it('answers an empty board (size 0) for a currency nothing was paid in yet', async () => {
    const { projectId } = await newProject(harness);
    expect(await board(projectId)).toMatchObject({ records: [], total: 0 });
  });
});
