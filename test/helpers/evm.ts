/**
 * An Ethereum chain inside the test process: EDR, the engine of Hardhat 3's simulated network,
 * used directly (no Hardhat project or config). Tests talk to it with viem through an EIP-1193
 * provider, or over HTTP JSON-RPC (`serveHttp`) as a deployed claim service would (CHAIN_RPC_URLS).
 * Blocks are mined on every transaction; `mine` and `increaseTime` move the chain on by hand.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AccountOverride,
  ContractDecoder,
  EdrContext,
  L1_CHAIN_TYPE,
  l1GenesisState,
  l1HardforkLatest,
  l1HardforkToString,
  l1ProviderFactory,
  MineOrdering,
  type Provider,
} from '@nomicfoundation/edr';
import type { Abi, Address, Chain, Hex, PublicClient, Transport, WalletClient } from 'viem' with { 'resolution-mode': 'import' };
import type { PrivateKeyAccount } from 'viem/accounts' with { 'resolution-mode': 'import' };
import { contractArtifact } from '../../scripts/compile-contracts';

const viem = () => import('viem');
const viemAccounts = () => import('viem/accounts');

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: number | string | null;
  method: string;
  params?: unknown[];
}

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: number | string | null; result: unknown }
  | { jsonrpc: '2.0'; id: number | string | null; error: { code: number; message: string; data?: unknown } };

/** The EIP-1193 shape viem's `custom` transport takes. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown }): Promise<unknown>;
}

/** What a JSON-RPC error becomes on the EIP-1193 side; viem reads `code` and the revert `data`. */
export class ProviderRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'ProviderRpcError';
  }
}

export type TestWalletClient = WalletClient<Transport, Chain, PrivateKeyAccount>;

export interface TestAccount {
  address: Address;
  privateKey: Hex;
  account: PrivateKeyAccount;
  /** Signs locally and sends raw transactions, as a user's wallet does. */
  wallet: TestWalletClient;
}

export interface HttpEndpoint {
  url: string;
  close(): Promise<void>;
}

export interface TestChain {
  chain: Chain;
  chainId: number;
  provider: Eip1193Provider;
  publicClient: PublicClient<Transport, Chain>;
  /** Funded with `balance` each, and also unlocked for eth_sendTransaction. */
  accounts: TestAccount[];
  /** Deploys a contract of contracts/ (compiled on demand) and waits for its receipt. */
  deploy(contractName: string, args?: readonly unknown[], from?: TestAccount): Promise<{ address: Address; abi: Abi }>;
  mine(blocks?: number): Promise<void>;
  /** Moves the clock on and mines a block at the new time; returns that block's timestamp. */
  increaseTime(seconds: number): Promise<bigint>;
  /** The latest block's timestamp (unix seconds): the `block.timestamp` a deadline is compared to. */
  timestamp(): Promise<bigint>;
  /** Saves the chain's state; calling the returned function rolls back to it. */
  snapshot(): Promise<() => Promise<void>>;
  /** A JSON-RPC endpoint over the same chain, on a free port of 127.0.0.1. */
  serveHttp(): Promise<HttpEndpoint>;
  stop(): Promise<void>;
}

export interface ChainOptions {
  chainId?: number;
  accounts?: number;
  /** Wei per account. */
  balance?: bigint;
  /** The genesis block's time; later blocks advance from it with the wall clock. Default: now. */
  startTime?: Date;
}

/**
 * EDR wants one context per process. Jest gives each test file its own module registry, so a worker
 * that runs a second chain test file creates a second context; EDR then prints "Failed to set global
 * tracing subscriber" once (its log tracing only; the chain works the same).
 */
let context: Promise<EdrContext> | undefined;
function edrContext(): Promise<EdrContext> {
  context ??= (async () => {
    const created = new EdrContext();
    await created.registerProviderFactory(L1_CHAIN_TYPE, l1ProviderFactory());
    return created;
  })();
  return context;
}

/** Fixed keys, so a failing run can be replayed; never used outside tests. */
async function testKeys(count: number): Promise<Hex[]> {
  const { keccak256, stringToHex } = await viem();
  return Array.from({ length: count }, (_, index) => keccak256(stringToHex(`referral platform test account ${index}`)));
}

async function createEdrProvider(chainId: number, keys: Hex[], addresses: Address[], balance: bigint, startTime?: Date): Promise<Provider> {
  const hardfork = l1HardforkLatest();
  const funded: AccountOverride[] = addresses.map((address) => ({ address: Buffer.from(address.slice(2), 'hex'), balance }));
  return (await edrContext()).createProvider(
    L1_CHAIN_TYPE,
    {
      allowBlocksWithSameTimestamp: false,
      allowUnlimitedContractSize: false,
      bailOnCallFailure: false,
      bailOnTransactionFailure: false,
      chainId: BigInt(chainId),
      coinbase: Buffer.alloc(20),
      defaultTransactionGasLimit: 16_000_000n,
      genesisState: [...l1GenesisState(hardfork), ...funded],
      hardfork: l1HardforkToString(hardfork),
      initialBaseFeePerGas: 1_000_000_000n,
      minGasPrice: 0n,
      mining: { autoMine: true, memPool: { order: MineOrdering.Priority } },
      network: {
        genesisBlockGasLimit: 60_000_000n,
        ...(startTime ? { genesisBlockTime: BigInt(Math.floor(startTime.getTime() / 1000)) } : {}),
      },
      networkId: BigInt(chainId),
      observability: {},
      ownedAccounts: keys,
      precompileOverrides: [],
    },
    { enable: false, decodeConsoleLogInputsCallback: () => [], printLineCallback: () => {} },
    { subscriptionCallback: () => {} },
    new ContractDecoder(),
  );
}

/** One JSON-RPC call through EDR, answered as a full JSON-RPC response. */
async function handle(provider: Provider, request: JsonRpcRequest): Promise<JsonRpcResponse> {
  if (typeof request !== 'object' || request === null || typeof request.method !== 'string') {
    return { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request' } };
  }
  const id = request.id ?? null;
  const response = await provider.handleRequest(JSON.stringify({ jsonrpc: '2.0', id, method: request.method, params: request.params ?? [] }));
  const data = (typeof response.data === 'string' ? JSON.parse(response.data) : response.data) as
    | { result: unknown }
    | { error: { code: number; message: string; data?: unknown } };
  return 'error' in data ? { jsonrpc: '2.0', id, error: withRevertData(data.error) } : { jsonrpc: '2.0', id, result: data.result };
}

/**
 * A revert answered the way geth does (code 3, the return data as `error.data`), which is what
 * viem decodes custom errors from; EDR answers -32000 with the data one level deeper.
 */
function withRevertData(error: { code: number; message: string; data?: unknown }): { code: number; message: string; data?: unknown } {
  const nested = (error.data as { data?: unknown } | undefined)?.data;
  return typeof nested === 'string' && nested.startsWith('0x') ? { code: 3, message: error.message, data: nested } : error;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function serveJsonRpc(provider: Provider): Promise<HttpEndpoint> {
  const server = createServer((request, response) => {
    (async () => {
      let body: JsonRpcRequest | JsonRpcRequest[];
      try {
        body = JSON.parse(await readBody(request)) as JsonRpcRequest | JsonRpcRequest[];
      } catch {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
        return;
      }
      const reply = Array.isArray(body) ? await Promise.all(body.map((one) => handle(provider, one))) : await handle(provider, body);
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    })().catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

export async function startChain(options: ChainOptions = {}): Promise<TestChain> {
  const { createPublicClient, createWalletClient, custom, defineChain, getAddress, hexToBigInt, numberToHex } = await viem();
  const { privateKeyToAccount } = await viemAccounts();
  const chainId = options.chainId ?? 31_337;
  const keys = await testKeys(options.accounts ?? 5);
  const signers = keys.map((key) => privateKeyToAccount(key));
  const edr = await createEdrProvider(
    chainId,
    keys,
    signers.map((signer) => signer.address),
    options.balance ?? 10n ** 22n,
    options.startTime,
  );

  let nextId = 0;
  const provider: Eip1193Provider = {
    async request({ method, params }) {
      nextId += 1;
      const reply = await handle(edr, { jsonrpc: '2.0', id: nextId, method, params: (params as unknown[] | undefined) ?? [] });
      if ('error' in reply) throw new ProviderRpcError(reply.error.code, reply.error.message, reply.error.data);
      return reply.result;
    },
  };

  const chain = defineChain({
    id: chainId,
    name: 'In-process test chain',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [] } },
  });
  // Blocks are mined at once, so polling fast costs nothing and keeps receipts quick; nothing here
  // fails transiently, so nothing is retried (viem would retry every revert three times).
  const transport = custom(provider, { retryCount: 0 });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 10 });
  const accounts = signers.map((account, index) => ({
    address: account.address,
    privateKey: keys[index] as Hex,
    account,
    wallet: createWalletClient({ account, chain, transport, pollingInterval: 10 }),
  }));
  const deployer = accounts[0];
  if (!deployer) throw new Error('a test chain needs at least one account');
  const endpoints = new Set<HttpEndpoint>();

  const rpc = (method: string, params: unknown[] = []) => provider.request({ method, params });
  const timestamp = async () => (await publicClient.getBlock({ blockTag: 'latest' })).timestamp;

  return {
    chain,
    chainId,
    provider,
    publicClient,
    accounts,
    async deploy(contractName, args = [], from = deployer) {
      const { abi, bytecode } = await contractArtifact(contractName);
      const hash = await from.wallet.deployContract({ abi, bytecode, args });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying ${contractName} failed`);
      return { address: getAddress(receipt.contractAddress), abi };
    },
    async mine(blocks = 1) {
      await rpc('hardhat_mine', [numberToHex(blocks)]);
    },
    async increaseTime(seconds) {
      await rpc('evm_increaseTime', [numberToHex(seconds)]);
      await rpc('evm_mine');
      return timestamp();
    },
    timestamp,
    async snapshot() {
      const id = (await rpc('evm_snapshot')) as Hex;
      return async () => {
        if ((await rpc('evm_revert', [id])) !== true) throw new Error(`snapshot ${hexToBigInt(id)} could not be restored`);
      };
    },
    async serveHttp() {
      const endpoint = await serveJsonRpc(edr);
      endpoints.add(endpoint);
      return {
        url: endpoint.url,
        close: async () => {
          endpoints.delete(endpoint);
          await endpoint.close();
        },
      };
    },
    async stop() {
      await Promise.all([...endpoints].map((endpoint) => endpoint.close()));
      endpoints.clear();
    },
  };
}
