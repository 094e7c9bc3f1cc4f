/**
 * An empty chain for the claim service to watch during the benchmark: EDR (Hardhat's simulated
 * network) behind a JSON-RPC endpoint on 127.0.0.1, as test/helpers/evm.ts serves one to the
 * tests. Nothing is deployed: the watcher reads no Claimed logs and nothing expires within a run;
 * it is there so that the claim service's watch job has a live chain and closing can sign for it.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ContractDecoder, EdrContext, L1_CHAIN_TYPE, l1GenesisState, l1HardforkLatest, l1HardforkToString, l1ProviderFactory, MineOrdering } from '@nomicfoundation/edr';

export interface BenchChain {
  chainId: number;
  url: string;
  stop(): Promise<void>;
}

async function body(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startBenchChain(chainId = 31_337): Promise<BenchChain> {
  const context = new EdrContext();
  await context.registerProviderFactory(L1_CHAIN_TYPE, l1ProviderFactory());
  const hardfork = l1HardforkLatest();
  const provider = await context.createProvider(
    L1_CHAIN_TYPE,
    {
      allowBlocksWithSameTimestamp: false,
      allowUnlimitedContractSize: false,
      bailOnCallFailure: false,
      bailOnTransactionFailure: false,
      chainId: BigInt(chainId),
      coinbase: Buffer.alloc(20),
      defaultTransactionGasLimit: 16_000_000n,
      genesisState: l1GenesisState(hardfork),
      hardfork: l1HardforkToString(hardfork),
      initialBaseFeePerGas: 1_000_000_000n,
      minGasPrice: 0n,
      mining: { autoMine: true, memPool: { order: MineOrdering.Priority } },
      network: { genesisBlockGasLimit: 60_000_000n },
      networkId: BigInt(chainId),
      observability: {},
      ownedAccounts: [],
      precompileOverrides: [],
    },
    { enable: false, decodeConsoleLogInputsCallback: () => [], printLineCallback: () => {} },
    { subscriptionCallback: () => {} },
    new ContractDecoder(),
  );
  const answer = async (request: { id?: unknown; method?: unknown; params?: unknown }) => {
    const response = await provider.handleRequest(JSON.stringify({ jsonrpc: '2.0', id: request.id ?? null, method: request.method, params: request.params ?? [] }));
    return typeof response.data === 'string' ? JSON.parse(response.data) : response.data;
  };
  const server = createServer((request, response) => {
    void (async () => {
      const parsed = JSON.parse(await body(request)) as unknown;
      const reply = Array.isArray(parsed) ? await Promise.all(parsed.map(answer)) : await answer(parsed as Record<string, unknown>);
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    })().catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    chainId,
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
