import type { Hex } from 'viem' with { 'resolution-mode': 'import' };
import { claimManagerReader } from '../../../services/claim/chain/claim-manager-reader';
import { VoucherRepository } from '../../../services/claim/repositories/voucher.repository';
import { TestClock } from '../../helpers/clock';
import { type ClaimHarness, startClaimDomain } from '../../helpers/claim-domain';
import { openCheck, trade } from './claim-check-fixtures';
import { type MediumChain, startMediumChain } from './claim-chain';
import { newUser, pay } from './fixtures';

const KEYS: Hex[] = [`0x${'5a'.repeat(32)}`];
const TTL = 3_600;

/**
 * A chain that is replaced under the watcher, as `npm start`'s dev chain is on every restart: the same
 * chain id, the same RPC URL and the same ClaimManager address (deployed again from the same account
 * and nonce), but a new genesis block and fewer blocks than the cursor had counted. The watcher must
 * notice the new genesis, start its cursor again and say so; otherwise it waits for the new chain to
 * reach the old height and never sees the redemptions in between.
 */
describe('the chain watcher on a chain that was replaced (a new genesis block)', () => {
  const clock = new TestClock();
  let first: MediumChain;
  let second: MediumChain | undefined;
  /** The chain the RPC URL answers for now: the reader follows it, as an HTTP transport follows a restarted node. */
  let current: MediumChain;
  let harness: ClaimHarness;
  let projectId: string;

  beforeAll(async () => {
    first = await startMediumChain({ keys: KEYS, ttlSeconds: TTL, confirmations: 0, startTime: clock.now() });
    current = first;
    const { custom } = await import('viem');
    const transport = custom({ request: (args: { method: string; params?: unknown }) => current.chain.provider.request(args) });
    harness = await startClaimDomain({ clock, checks: { ...first.checks, readerOf: (settings) => claimManagerReader(settings, transport) } });
    projectId = (await import('node:crypto')).randomUUID();
    const currency = await harness.domain.currencies.create(projectId, {
      chainId: String(first.chain.chainId),
      address: first.token,
      name: 'TUSD',
      decimals: 6,
      type: 'erc20',
    });
    await harness.domain.terms.put(projectId, 'trade', { currencyId: currency.id, endUser: { bps: 100 }, affiliate: undefined, tiers: [] });
    await harness.domain.claimSettings.put(projectId, first.projectAccount.address);
  });
  afterAll(async () => {
    await harness?.stop();
    await first?.chain.stop();
    await second?.chain.stop();
  });

  const watch = () => harness.domain.watcher.run(current.chain.chainId);
  const statusOf = async (checkId: string) =>
    (await harness.sql.query('SELECT status FROM claim.claim_checks WHERE id = $1', [checkId])).rows[0].status as string;
  const cursorRow = async () =>
    (await harness.sql.query('SELECT last_block::text, genesis_hash FROM claim.chain_cursors')).rows as Array<{
      last_block: string;
      genesis_hash: string | null;
    }>;
  const genesisOf = async (chain: MediumChain) => (await chain.chain.publicClient.getBlock({ blockNumber: 0n })).hash;

  async function redeemedVoucher(rewardBase: number) {
    await current.syncClock(clock);
    const user = newUser();
    await pay(harness, projectId, [trade(user, rewardBase)]);
    const check = await openCheck(harness, projectId, user, 'end_user');
    const [row] = await harness.domain.claimChecks.close(projectId, user, [check.id]);
    expect((await current.redeem([row!])).status).toBe('success');
    return check;
  }

  it('keeps the genesis hash with the cursor, and adopts the chain’s for a cursor taken before it was kept', async () => {
    const check = await redeemedVoucher(10_000);
    await first.chain.mine(10);
    expect(await watch()).toMatchObject({ claimed: 1 });
    expect(await statusOf(check.id)).toBe('claimed');
    const height = await first.chain.publicClient.getBlockNumber({ cacheTime: 0 });
    expect(await cursorRow()).toEqual([{ last_block: String(height), genesis_hash: await genesisOf(first) }]);

    // As a cursor written before the migration: no genesis. It learns it and keeps its place.
    await harness.sql.query('UPDATE claim.chain_cursors SET genesis_hash = NULL');
    await watch();
    expect(await cursorRow()).toEqual([{ last_block: String(height), genesis_hash: await genesisOf(first) }]);
    expect(harness.logs.text()).not.toContain('new genesis block');
  });

  it('starts the cursor again on a chain with a new genesis, says so once, and applies the new chain’s redemptions', async () => {
    const [before] = await cursorRow();
    // The same deployment on a fresh chain (a restart): same addresses, fewer blocks than the cursor counted.
    second = await startMediumChain({ keys: KEYS, ttlSeconds: TTL, confirmations: 0, startTime: new Date(clock.now().getTime() + 1_000) });
    expect([second.manager, second.token]).toEqual([first.manager, first.token]);
    current = second;
    const check = await redeemedVoucher(20_000);
    const height = await second.chain.publicClient.getBlockNumber({ cacheTime: 0 });
    expect(height).toBeLessThan(BigInt(before!.last_block));

    expect(await watch()).toMatchObject({ claimed: 1, lastBlock: String(height) });
    expect(await statusOf(check.id)).toBe('claimed');
    expect(await cursorRow()).toEqual([{ last_block: String(height), genesis_hash: await genesisOf(second) }]);
    const warnings = harness.logs.lines.filter((line) => line.includes('new genesis block'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"level":"warn"');
    expect(warnings[0]).toContain(`"previous_genesis_hash":"${before!.genesis_hash}"`);
    expect(warnings[0]).toContain(`"genesis_hash":"${await genesisOf(second)}"`);
    expect(warnings[0]).toContain(`"previous_last_block":"${before!.last_block}"`);

    // Read again: the same chain, nothing more to say or apply.
    expect(await watch()).toMatchObject({ claimed: 0 });
    expect(harness.logs.lines.filter((line) => line.includes('new genesis block'))).toHaveLength(1);
  });

  it('applies nothing read from the old chain once the cursor belongs to the new one', async () => {
    const [row] = await cursorRow();
    const vouchers = new VoucherRepository(harness.db);
    const stale = await vouchers.applyClaims(
      BigInt(second!.chain.chainId),
      second!.manager.toLowerCase(),
      await genesisOf(first),
      BigInt(row!.last_block),
      BigInt(row!.last_block) + 1n,
      [],
      clock.now(),
    );
    expect(stale.applied).toBe(false);
    expect(await cursorRow()).toEqual([row]);
  });
});
