import type { Hex } from 'viem' with { 'resolution-mode': 'import' };
import type { Reconciliation } from '../../../services/claim/domain/reconciliation.service';
import { NotFoundError } from '../../../services/rules/errors';
import { TestClock } from '../../helpers/clock';
import { randomEvmAddress } from '../../helpers/evm-addresses';
import { referredPair, type User } from './claim-check-fixtures';
import { newProjectOnChainWithTerms, useClaimDomainOnChain } from './claim-chain';
import { payOne } from './fixtures';

const KEYS: Hex[] = [`0x${'5c'.repeat(32)}`];
const TTL = 3_600;
const CONFIRMATIONS = 2;
const DAY_SECONDS = 86_400;
const KEY = 'key-admin-reconciliation';

/** What a line holds, as the endpoint writes it (decimal strings); the parts not built yet are "0". */
function figures(
  values: Partial<
    Record<'earned' | 'capped' | 'declined' | 'pending' | 'available' | 'open' | 'closed' | 'claimed' | 'expired' | 'credited', string>
  >,
) {
  return {
    earned: values.earned ?? '0',
    capped: values.capped ?? '0',
    reversed: '0',
    declined: values.declined ?? '0',
    pending: values.pending ?? '0',
    available: values.available ?? '0',
    inOpenChecks: values.open ?? '0',
    inClosedChecks: values.closed ?? '0',
    claimed: values.claimed ?? '0',
    expired: values.expired ?? '0',
    creditedBack: values.credited ?? '0',
    debt: '0',
    balanced: true,
  };
}

/** The lines as strings, keyed by kind (one currency). */
function byKind(reconciliation: Reconciliation) {
  return Object.fromEntries(
    reconciliation.lines.map((line) => [
      line.kind,
      {
        earned: line.earned.toString(),
        capped: line.capped.toString(),
        reversed: line.reversed.toString(),
        declined: line.declined.toString(),
        pending: line.pending.toString(),
        available: line.available.toString(),
        inOpenChecks: line.inOpenChecks.toString(),
        inClosedChecks: line.inClosedChecks.toString(),
        claimed: line.claimed.toString(),
        expired: line.expired.toString(),
        creditedBack: line.creditedBack.toString(),
        debt: line.debt.toString(),
        balanced: line.balanced,
      },
    ]),
  );
}

/**
 * The reconciliation over a scripted life of the money, on ClaimManager on the in-process EVM: payments paid at
 * once, held a day and waiting for approval; an approval and a decline; closes; a voucher redeemed on chain and
 * one expired (credited back); the hold released. Every figure is exact and the books balance at each stage.
 */
describe('ledger reconciliation', () => {
  const clock = new TestClock();
  const { medium, harness } = useClaimDomainOnChain(clock, { keys: KEYS, ttlSeconds: TTL, confirmations: CONFIRMATIONS });

  async function project() {
    await medium.syncClock(clock);
    return newProjectOnChainWithTerms(harness, medium, {
      trade: {},
      held: { holdDays: 1 },
      vetted: { requireApproval: true },
      capped: { caps: { perConversion: '50000', perEndUser: '15000' } },
    });
  }

  const pay = (projectId: string, user: User, name: string, rewardBase: number) =>
    payOne(harness, projectId, { user, name, rewardBase: String(rewardBase) });

  const closeOpen = async (projectId: string, user: User) => {
    const { rows } = await harness.sql.query<{ id: string }>(
      "SELECT id FROM claim.claim_checks WHERE project_id = $1 AND identifier = $2 AND status = 'open'",
      [projectId, user.identifier],
    );
    return rows.length === 0
      ? []
      : harness.domain.claimChecks.close(
          projectId,
          user,
          rows.map((row) => row.id),
        );
  };

  const watch = () => harness.domain.watcher.run(medium.chain.chainId);

  it('states every figure exactly, and balances, after payments, a release, an approval, a decline, a close, a claim and an expiry', async () => {
    const { projectId, currencyId } = await project();
    const { affiliate, user } = referredPair(harness, projectId);
    const read = async () => byKind(await harness.domain.reconciliation.get(projectId, currencyId));

    // Nothing yet: three lines of zeros, balanced.
    expect(await read()).toEqual({ affiliate_payout: figures({}), end_user_payout: figures({}), agency_payout: figures({}) });

    // Paid at once (1% to the user, 10% to the affiliate), held a day, and two waiting for approval.
    await pay(projectId, user, 'trade', 1_000_000);
    await pay(projectId, user, 'held', 2_000_000);
    const approved = await pay(projectId, user, 'vetted', 3_000_000);
    const declined = await pay(projectId, user, 'vetted', 4_000_000);
    expect(await read()).toEqual({
      affiliate_payout: figures({ earned: '1000000', pending: '900000', available: '100000', open: '100000' }),
      end_user_payout: figures({ earned: '100000', pending: '90000', available: '10000', open: '10000' }),
      agency_payout: figures({}),
    });

    await harness.domain.decisions.approve(projectId, [approved], undefined, KEY);
    await harness.domain.decisions.decline(projectId, [declined], 'not a real trade', KEY);
    expect(await read()).toEqual({
      affiliate_payout: figures({ earned: '1000000', declined: '400000', pending: '200000', available: '400000', open: '400000' }),
      end_user_payout: figures({ earned: '100000', declined: '40000', pending: '20000', available: '40000', open: '40000' }),
      agency_payout: figures({}),
    });

    // Both close; the user redeems on chain, the affiliate lets its voucher expire (credited back to a new open check).
    await closeOpen(projectId, affiliate);
    const [voucher] = await closeOpen(projectId, user);
    expect(await read()).toMatchObject({
      affiliate_payout: figures({ earned: '1000000', declined: '400000', pending: '200000', available: '400000', closed: '400000' }),
      end_user_payout: figures({ earned: '100000', declined: '40000', pending: '20000', available: '40000', closed: '40000' }),
    });
    expect((await medium.redeem([voucher!])).status).toBe('success');
    await medium.chain.mine(CONFIRMATIONS);
    await medium.syncClock(clock);
    await watch();
    await medium.chain.increaseTime(TTL + 10);
    await medium.chain.mine(CONFIRMATIONS);
    await medium.syncClock(clock);
    await watch();
    expect(await read()).toEqual({
      affiliate_payout: figures({
        earned: '1000000',
        declined: '400000',
        pending: '200000',
        available: '400000',
        open: '400000',
        expired: '400000',
        credited: '400000',
      }),
      end_user_payout: figures({ earned: '100000', declined: '40000', pending: '20000', available: '40000', claimed: '40000' }),
      agency_payout: figures({}),
    });

    // The hold passes and the release job makes the held payment available, into the open checks.
    await medium.chain.increaseTime(DAY_SECONDS + 1);
    await medium.syncClock(clock);
    expect(await harness.domain.decisions.releaseDue(100)).toBe(2);
    const settled = await harness.domain.reconciliation.get(projectId, currencyId);
    expect(byKind(settled)).toEqual({
      affiliate_payout: figures({
        earned: '1000000',
        declined: '400000',
        available: '600000',
        open: '600000',
        expired: '400000',
        credited: '400000',
      }),
      end_user_payout: figures({ earned: '100000', declined: '40000', available: '60000', open: '20000', claimed: '40000' }),
      agency_payout: figures({}),
    });
    expect(settled.balanced).toBe(true);
    // Every currency of the project (it has one) answers the same.
    expect(await harness.domain.reconciliation.get(projectId, undefined)).toEqual(settled);
  }, 120_000);

  it('counts what caps cut as capped, inside earned, and balances with movements capped to nothing', async () => {
    const { projectId, currencyId } = await project();
    const { affiliate, user } = referredPair(harness, projectId);
    const read = async () => byKind(await harness.domain.reconciliation.get(projectId, currencyId));
    // Three conversions of 1,000,000: the affiliate's 100,000 each cut to 50,000 (per conversion); the user's 10,000 paid,
    // then cut to 5,000, then to nothing (15,000 per end user).
    for (let round = 0; round < 3; round += 1) await pay(projectId, user, 'capped', 1_000_000);
    expect(await read()).toEqual({
      affiliate_payout: figures({ earned: '300000', capped: '150000', available: '150000', open: '150000' }),
      end_user_payout: figures({ earned: '30000', capped: '15000', available: '15000', open: '15000' }),
      agency_payout: figures({}),
    });
    await closeOpen(projectId, affiliate);
    await closeOpen(projectId, user);
    const closed = await harness.domain.reconciliation.get(projectId, currencyId);
    expect(byKind(closed)).toEqual({
      affiliate_payout: figures({ earned: '300000', capped: '150000', available: '150000', closed: '150000' }),
      end_user_payout: figures({ earned: '30000', capped: '15000', available: '15000', closed: '15000' }),
      agency_payout: figures({}),
    });
    expect(closed.balanced).toBe(true);
  }, 60_000);

  it('lists every currency of the project, three kinds each, and refuses a currency that is not the project’s', async () => {
    const { projectId, currencyId } = await project();
    // Currencies are listed in the order they were added.
    clock.advance(1_000);
    const second = await harness.domain.currencies.create(projectId, {
      chainId: String(medium.chain.chainId),
      address: randomEvmAddress(),
      name: 'OTHER',
      decimals: 18,
      type: 'erc20',
    });
    const all = await harness.domain.reconciliation.get(projectId, undefined);
    expect(all.lines.map((line) => [line.currency.id, line.kind])).toEqual([
      [currencyId, 'affiliate_payout'],
      [currencyId, 'end_user_payout'],
      [currencyId, 'agency_payout'],
      [second.id, 'affiliate_payout'],
      [second.id, 'end_user_payout'],
      [second.id, 'agency_payout'],
    ]);
    expect(all.balanced).toBe(true);
    // Another project's currency, an unknown id and no UUID at all: none is this project's.
    const other = await project();
    for (const id of [other.currencyId, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const refusal: unknown = await harness.domain.reconciliation.get(projectId, id).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(NotFoundError);
      expect(refusal).toMatchObject({ code: 'CURRENCY_NOT_FOUND' });
    }
  }, 60_000);

  it('says unbalanced, on that line only, when a claim check holds what no movement or credit explains', async () => {
    const { projectId, currencyId } = await project();
    const { user } = referredPair(harness, projectId);
    await pay(projectId, user, 'trade', 1_000_000);
    // A corruption no code path writes: the user's open check grows by one base unit.
    await harness.sql.query("UPDATE claim.claim_checks SET amount = amount + 1 WHERE project_id = $1 AND reason = 'end_user'", [projectId]);
    const books = await harness.domain.reconciliation.get(projectId, currencyId);
    expect(books.lines.map((line) => [line.kind, line.available.toString(), line.inOpenChecks.toString(), line.balanced])).toEqual([
      ['affiliate_payout', '100000', '100000', true],
      ['end_user_payout', '10000', '10001', false],
      ['agency_payout', '0', '0', true],
    ]);
    expect(books.balanced).toBe(false);
  }, 60_000);

  it('balances in every read taken while payments, closes and releases commit concurrently (one snapshot per read)', async () => {
    const { projectId, currencyId } = await project();
    const { affiliate, user } = referredPair(harness, projectId);
    let writing = true;
    const reads: boolean[] = [];
    const reader = (async () => {
      while (writing) reads.push((await harness.domain.reconciliation.get(projectId, currencyId)).balanced);
    })();
    const writers = async (round: number) => {
      await pay(projectId, user, round % 2 === 0 ? 'trade' : 'held', 1_000_000 + round);
      await Promise.all([closeOpen(projectId, affiliate), closeOpen(projectId, user), harness.domain.decisions.releaseDue(1)]);
    };
    try {
      await Promise.all(Array.from({ length: 8 }, (_, round) => writers(round)));
      clock.advance((DAY_SECONDS + 1) * 1000);
      await Promise.all([harness.domain.decisions.releaseDue(1), harness.domain.decisions.releaseDue(2), closeOpen(projectId, user)]);
    } finally {
      writing = false;
      await reader;
    }
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.filter((balanced) => !balanced)).toEqual([]);
    // Everything settled: 8 payments paying 10% and 1% of 1,000,000 + round each, all available now (the held ones released).
    const lines = byKind(await harness.domain.reconciliation.get(projectId, currencyId));
    expect([lines.affiliate_payout!.available, lines.end_user_payout!.available, lines.affiliate_payout!.balanced]).toEqual([
      Array.from({ length: 8 }, (_, round) => BigInt(1_000_000 + round) / 10n)
        .reduce((sum, amount) => sum + amount, 0n)
        .toString(),
      Array.from({ length: 8 }, (_, round) => BigInt(1_000_000 + round) / 100n)
        .reduce((sum, amount) => sum + amount, 0n)
        .toString(),
      true,
    ]);
  }, 60_000);
});
