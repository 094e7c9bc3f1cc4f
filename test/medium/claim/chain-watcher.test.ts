import type { Address, Hex } from 'viem' with { 'resolution-mode': 'import' };
import type { ClaimRow } from '../../../services/claim/domain/claim-check.service';
import { TestClock } from '../../helpers/clock';
import type { TestAccount, TestChain } from '../../helpers/evm';
import { openCheck, reconciliation, trade, unbalanced } from './claim-check-fixtures';
import { useClaimDomainOnChain } from './claim-chain';
import { newUser, pay } from './fixtures';

const KEYS: Hex[] = [`0x${'7c'.repeat(32)}`, `0x${'8d'.repeat(32)}`];
const TTL = 3_600;
const CONFIRMATIONS = 2;
const DEPOSIT = 10n ** 15n;

/**
 * The chain watcher against ClaimManager on the in-process EVM, reached through viem over the EVM's
 * EIP-1193 provider (the same reader the service builds over HTTP): vouchers the domain signs are
 * redeemed for real tokens; Claimed logs mark them claimed after N confirmations; a voucher whose
 * deadline passed unredeemed gives its amount back once; replayed, expired and forged vouchers are refused.
 */
describe('the chain watcher and ClaimManager on the in-process EVM', () => {
  const clock = new TestClock();
  const { medium, harness } = useClaimDomainOnChain(clock, { keys: KEYS, ttlSeconds: TTL, confirmations: CONFIRMATIONS, deposit: DEPOSIT });
  let chain: TestChain;
  let relayer: TestAccount;
  let projectAccount: TestAccount;
  let token: Address;
  let projectId: string;

  beforeAll(async () => {
    ({ chain, relayer, projectAccount, token } = medium);
    projectId = (await setUpProject()).projectId;
  });
  // Tests move the chain's clock on; the service's follows it, so that vouchers are signed for the chain's "now".
  const syncClocks = () => medium.syncClock(clock);
  beforeEach(syncClocks);

  async function setUpProject() {
    const { randomUUID } = await import('node:crypto');
    const id = randomUUID();
    const currency = await harness.domain.currencies.create(id, {
      chainId: String(chain.chainId),
      address: token,
      name: 'TUSD',
      decimals: 6,
      type: 'erc20',
    });
    await harness.domain.terms.put(id, 'trade', { currencyId: currency.id, endUser: { bps: 100 }, affiliate: undefined, tiers: [] });
    await harness.domain.claimSettings.put(id, projectAccount.address);
    return { projectId: id, currencyId: currency.id };
  }

  const balanceOf = (holder: string) => medium.balanceOf(holder);
  const watch = () => harness.domain.watcher.run(chain.chainId);
  const statusOf = async (checkId: string) =>
    (await harness.sql.query('SELECT status FROM claim.claim_checks WHERE id = $1', [checkId])).rows[0].status as string;
  const redeem = (rows: ClaimRow[]) => medium.redeem(rows);
  const revertOf = (attempt: Promise<unknown>) => medium.revertOf(attempt);

  async function closedVoucher(rewardBase = 10_000) {
    const user = newUser();
    await pay(harness, projectId, [trade(user, rewardBase)]);
    const check = await openCheck(harness, projectId, user, 'end_user');
    const [row] = await harness.domain.claimChecks.close(projectId, user, [check.id]);
    return { user, check, row: row! };
  }

  it('pays the user real tokens for a voucher, and marks it claimed with its transaction once N blocks confirm it', async () => {
    const { user, check, row } = await closedVoucher(123_400);
    const receipt = await redeem([row]);
    expect(receipt.status).toBe('success');
    expect(await balanceOf(user.identifier)).toBe(1_234n);

    // Not final yet: the watcher reads only blocks with CONFIRMATIONS on top.
    await watch();
    expect(await statusOf(check.id)).toBe('closed');
    await chain.mine(CONFIRMATIONS);
    expect(await watch()).toMatchObject({ claimed: 1, credited: 0 });
    expect(await statusOf(check.id)).toBe('claimed');
    const block = await chain.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    const { rows } = await harness.sql.query(
      'SELECT claim_tx_hash, claim_block_number::text, claimed_at FROM claim.vouchers WHERE claim_check_id = $1',
      [check.id],
    );
    expect(rows).toEqual([
      {
        claim_tx_hash: receipt.transactionHash,
        claim_block_number: String(receipt.blockNumber),
        claimed_at: new Date(Number(block.timestamp) * 1000),
      },
    ]);

    const history = await harness.domain.claimChecks.history(projectId, user, { page: 1, pageSize: 25, offset: 0 });
    expect(history).toEqual({ records: [expect.objectContaining({ transactionHash: receipt.transactionHash, amount: 1_234n })], total: 1 });
    expect((await harness.domain.claimChecks.totals(projectId, user)).claimed.map((total) => total.amount)).toEqual([1_234n]);
    // Read again (or by a second worker): nothing changes.
    expect(await watch()).toMatchObject({ claimed: 0, credited: 0 });

    // The same voucher again, as it is or re-signed claims: the contract refuses the proof.
    expect(await revertOf(redeem([row]))).toBe('ProofAlreadyClaimed');
  });

  it('announces a close that signed once (closing again announces nothing) and the redemption once, however often the watcher reads it', async () => {
    const { user, check, row } = await closedVoucher(45_600);
    await harness.domain.claimChecks.close(projectId, user, [check.id]);
    const eventsOf = async (type: string) =>
      (
        await harness.sql.query(
          `SELECT project_id, payload FROM claim.outbox WHERE type = $1 AND (payload->>'claim_check_id' = $2 OR payload->'claim_checks'->0->>'claim_check_id' = $2)`,
          [type, check.id],
        )
      ).rows;
    const owner = { identifier: user.identifier, identifier_type: 'evm_address' };
    const currency = { currency_address: token.toLowerCase(), currency_chain_id: String(chain.chainId) };
    expect(await eventsOf('claim.claim_check.closed')).toEqual([
      {
        project_id: projectId,
        payload: {
          user: owner,
          closed_at: clock.now().toISOString(),
          claim_checks: [{ claim_check_id: check.id, reason: 'end_user', amount: '456', ...currency, deadline: row.signed!.deadline.toString() }],
        },
      },
    ]);
    const receipt = await redeem([row]);
    await chain.mine(CONFIRMATIONS);
    await watch();
    await watch();
    const block = await chain.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    expect(await eventsOf('claim.claim_check.claimed')).toEqual([
      {
        project_id: projectId,
        payload: {
          claim_check_id: check.id,
          user: owner,
          reason: 'end_user',
          amount: '456',
          ...currency,
          transaction_hash: receipt.transactionHash,
          block_number: String(receipt.blockNumber),
          claimed_at: new Date(Number(block.timestamp) * 1000).toISOString(),
        },
      },
    ]);
  });

  it('refuses a forged voucher (another amount, another recipient) and one past its deadline, changing nothing', async () => {
    const { user, row } = await closedVoucher(50_000);
    expect(await revertOf(redeem([{ ...row, amount: row.amount * 10n }]))).toBe('InvalidSigner');
    expect(await revertOf(redeem([{ ...row, to: relayer.address.toLowerCase() }]))).toBe('InvalidSigner');
    expect(await revertOf(redeem([{ ...row, signed: { ...row.signed!, signatures: [row.signed!.signatures[0]!] } }]))).toBe('NotEnoughSignatures');
    expect(await balanceOf(user.identifier)).toBe(0n);
    await chain.increaseTime(TTL + 60);
    expect(await revertOf(redeem([row]))).toBe('DeadlineExpired');
  });

  it('returns an expired voucher’s amount to an open check exactly once, after a final block past its deadline shows its proof unredeemed', async () => {
    const { user, check, row } = await closedVoucher(30_000);
    await pay(harness, projectId, [trade(user, 70_000)]);
    const open = await openCheck(harness, projectId, user, 'end_user');

    // Past the deadline, but the only blocks after it are not final yet: nothing is credited.
    await chain.increaseTime(TTL + 60);
    await watch();
    expect(await statusOf(check.id)).toBe('closed');
    await chain.mine(CONFIRMATIONS);
    const results = await Promise.all([watch(), watch(), watch()]);
    expect(results.reduce((sum, result) => sum + result.credited, 0)).toBeGreaterThanOrEqual(1);
    expect(await statusOf(check.id)).toBe('expired');
    expect(await watch()).toMatchObject({ credited: 0 });

    const credits = await harness.sql.query('SELECT open_check_id, amount::text FROM claim.claim_check_credits WHERE expired_check_id = $1', [
      check.id,
    ]);
    expect(credits.rows).toEqual([{ open_check_id: open.id, amount: '300' }]);
    expect((await openCheck(harness, projectId, user, 'end_user')).amount).toBe(1_000n);
    expect(unbalanced(await reconciliation(harness, projectId))).toEqual([]);

    // The expired voucher stays refused; the open check, closed again, is a new voucher that pays all of it.
    expect(await revertOf(redeem([row]))).toBe('DeadlineExpired');
    await syncClocks();
    const [again] = await harness.domain.claimChecks.close(projectId, user, [open.id]);
    expect(again!.signed!.proof).not.toBe(row.signed!.proof);
    expect((await redeem([again!])).status).toBe('success');
    expect(await balanceOf(user.identifier)).toBe(1_000n);
  });

  it('never credits back a voucher redeemed in its last moments, while the blocks after its deadline are not final', async () => {
    const { user, check, row } = await closedVoucher(40_000);
    await chain.increaseTime(TTL - 30);
    expect((await redeem([row])).status).toBe('success');
    await chain.increaseTime(120);
    await watch();
    await chain.mine(CONFIRMATIONS + 1);
    await watch();
    await watch();
    expect(await statusOf(check.id)).toBe('claimed');
    expect(await balanceOf(user.identifier)).toBe(400n);
    expect(
      (await harness.sql.query('SELECT count(*)::int AS n FROM claim.claim_check_credits WHERE expired_check_id = $1', [check.id])).rows[0].n,
    ).toBe(0);
  });

  it('marks claimed, without a transaction, a voucher redeemed before the first block the watcher read', async () => {
    const { check, row } = await closedVoucher(20_000);
    await redeem([row]);
    await chain.mine(CONFIRMATIONS);
    // As if the watcher had started after this block (CHAIN_START_BLOCKS too late): its log is never read.
    const latest = await chain.publicClient.getBlockNumber();
    await harness.sql.query('UPDATE claim.chain_cursors SET last_block = $1', [String(latest - BigInt(CONFIRMATIONS))]);
    await chain.increaseTime(TTL + 60);
    await chain.mine(CONFIRMATIONS);
    expect(await watch()).toMatchObject({ credited: 0 });
    expect(await statusOf(check.id)).toBe('claimed');
    const { rows } = await harness.sql.query(
      'SELECT claim_tx_hash, claimed_at IS NOT NULL AS claimed FROM claim.vouchers WHERE claim_check_id = $1',
      [check.id],
    );
    expect(rows).toEqual([{ claim_tx_hash: null, claimed: true }]);
    // Announced once, without a transaction.
    const announced = await harness.sql.query(
      `SELECT payload FROM claim.outbox WHERE type = 'claim.claim_check.claimed' AND payload->>'claim_check_id' = $1`,
      [check.id],
    );
    expect(announced.rows).toEqual([
      { payload: expect.objectContaining({ claim_check_id: check.id, transaction_hash: null, block_number: null, amount: '200' }) },
    ]);
  });
});
