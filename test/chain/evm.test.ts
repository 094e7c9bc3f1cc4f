import { startChain } from '../helpers/evm';

/** The in-process chain itself: its clock, its accounts, snapshots and the HTTP endpoint's lifetime. */
describe('the in-process test chain', () => {
  it('starts at the given time, jumps forward on demand, and funds its accounts on its chain id', async () => {
    const start = new Date('2026-11-21T12:00:00.000Z');
    const chain = await startChain({ startTime: start, accounts: 2, balance: 7n * 10n ** 18n, chainId: 8453 });
    try {
      const genesis = BigInt(start.getTime() / 1000);
      const first = await chain.timestamp();
      expect(first).toBeGreaterThanOrEqual(genesis);
      expect(first - genesis).toBeLessThan(5n); // the wall clock runs on from the genesis time
      const later = await chain.increaseTime(86_400);
      expect(later - first).toBeGreaterThanOrEqual(86_400n);

      expect(await chain.publicClient.getChainId()).toBe(8453);
      expect(chain.accounts).toHaveLength(2);
      for (const { address } of chain.accounts) expect(await chain.publicClient.getBalance({ address })).toBe(7n * 10n ** 18n);
    } finally {
      await chain.stop();
    }
  });

  it('mines blocks on demand and rolls back to a snapshot', async () => {
    const chain = await startChain({ accounts: 2 });
    try {
      const [from, to] = chain.accounts;
      const height = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
      const restore = await chain.snapshot();
      const hash = await from!.wallet.sendTransaction({ to: to!.address, value: 1_000n });
      await chain.publicClient.waitForTransactionReceipt({ hash });
      await chain.mine(10);
      expect(await chain.publicClient.getBlockNumber({ cacheTime: 0 })).toBe(height + 11n);

      await restore();
      expect(await chain.publicClient.getBlockNumber({ cacheTime: 0 })).toBe(height);
      expect(await chain.publicClient.getBalance({ address: to!.address })).toBe(10n ** 22n);
    } finally {
      await chain.stop();
    }
  });

  it('closes its HTTP endpoints when stopped', async () => {
    const chain = await startChain({ accounts: 1 });
    const endpoint = await chain.serveHttp();
    const call = () => fetch(endpoint.url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_blockNumber' }) });
    expect(await (await call()).json()).toEqual({ jsonrpc: '2.0', id: 7, result: '0x0' });
    await chain.stop();
    await expect(call()).rejects.toThrow();
  });
});
