/**
 * A local Ethereum chain in this process: EDR, the engine of Hardhat's simulated network, used
 * directly (no Hardhat project or config), answering JSON-RPC in-process (an EIP-1193 provider)
 * and over HTTP. Blocks are mined on every transaction. It keeps its state in memory only.
 *
 * Used by `npm start`'s dev chain (dev-chain.ts, main.ts), the tests (test/helpers/evm.ts) and the
 * benchmark (bench/chain.ts): one chain implementation. EDR is a devDependency: production images
 * never load this file.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
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

export interface HttpEndpoint {
  url: string;
  close(): Promise<void>;
}

export interface EdrChainOptions {
  chainId: number;
  /** Private keys (0x + 64 hex) the node signs eth_sendTransaction with. */
  ownedKeys?: readonly string[];
  /** Accounts given a balance (wei) in the genesis block. */
  funded?: ReadonlyArray<{ address: string; balance: bigint }>;
  /** The genesis block's time; later blocks advance from it with the wall clock. Default: now. */
  startTime?: Date;
}

export interface EdrChain {
  chainId: number;
  /** In-process JSON-RPC, as a browser wallet or viem's `custom` transport calls it. */
  provider: Eip1193Provider;
  /** One JSON-RPC request, answered as a full JSON-RPC response (errors included, never thrown). */
  handle(request: JsonRpcRequest): Promise<JsonRpcResponse>;
  /**
   * JSON-RPC over HTTP on host:port (default 127.0.0.1 and a free port); closed by `stop`. Requests
   * that arrive before `ready` settles wait for it (the port is taken at once, the answers follow).
   */
  serveHttp(options?: { host?: string; port?: number; ready?: Promise<unknown> }): Promise<HttpEndpoint>;
  /** Closes every HTTP endpoint. */
  stop(): Promise<void>;
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

async function createEdrProvider(options: EdrChainOptions): Promise<Provider> {
  const hardfork = l1HardforkLatest();
  const funded: AccountOverride[] = (options.funded ?? []).map(({ address, balance }) => ({
    address: Buffer.from(address.slice(2), 'hex'),
    balance,
  }));
  return (await edrContext()).createProvider(
    L1_CHAIN_TYPE,
    {
      allowBlocksWithSameTimestamp: false,
      allowUnlimitedContractSize: false,
      bailOnCallFailure: false,
      bailOnTransactionFailure: false,
      chainId: BigInt(options.chainId),
      coinbase: Buffer.alloc(20),
      defaultTransactionGasLimit: 16_000_000n,
      genesisState: [...l1GenesisState(hardfork), ...funded],
      hardfork: l1HardforkToString(hardfork),
      initialBaseFeePerGas: 1_000_000_000n,
      minGasPrice: 0n,
      mining: { autoMine: true, memPool: { order: MineOrdering.Priority } },
      network: {
        genesisBlockGasLimit: 60_000_000n,
        ...(options.startTime ? { genesisBlockTime: BigInt(Math.floor(options.startTime.getTime() / 1000)) } : {}),
      },
      networkId: BigInt(options.chainId),
      observability: {},
      ownedAccounts: [...(options.ownedKeys ?? [])],
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
    { result: unknown } | { error: { code: number; message: string; data?: unknown } };
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

/** Browser wallets and pages on another origin may call the node, as they may call Hardhat's or Anvil's. */
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'content-type',
};

function reply(response: ServerResponse, body: unknown, status = 200): void {
  response.writeHead(status, { 'content-type': 'application/json', ...CORS_HEADERS }).end(JSON.stringify(body));
}

/** Listens, or fails with the listen error (EADDRINUSE included) rather than an unhandled 'error' event. */
async function serveJsonRpc(answer: (request: JsonRpcRequest) => Promise<JsonRpcResponse>, host: string, port: number): Promise<HttpEndpoint> {
  const server = createServer((request, response) => {
    if (request.method === 'OPTIONS') {
      response.writeHead(204, CORS_HEADERS).end();
      return;
    }
    (async () => {
      let body: JsonRpcRequest | JsonRpcRequest[];
      try {
        body = JSON.parse(await readBody(request)) as JsonRpcRequest | JsonRpcRequest[];
      } catch {
        reply(response, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
        return;
      }
      reply(response, Array.isArray(body) ? await Promise.all(body.map(answer)) : await answer(body));
    })().catch((error: unknown) => {
      if (!response.headersSent) reply(response, { jsonrpc: '2.0', id: null, error: { code: -32603, message: String(error) } }, 500);
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

export async function startEdrChain(options: EdrChainOptions): Promise<EdrChain> {
  const edr = await createEdrProvider(options);
  const answer = (request: JsonRpcRequest) => handle(edr, request);
  let nextId = 0;
  const provider: Eip1193Provider = {
    async request({ method, params }) {
      nextId += 1;
      const response = await answer({ jsonrpc: '2.0', id: nextId, method, params: (params as unknown[] | undefined) ?? [] });
      if ('error' in response) throw new ProviderRpcError(response.error.code, response.error.message, response.error.data);
      return response.result;
    },
  };
  const endpoints = new Set<HttpEndpoint>();
  return {
    chainId: options.chainId,
    provider,
    handle: answer,
    async serveHttp({ host = '127.0.0.1', port = 0, ready } = {}) {
      const endpoint = await serveJsonRpc(ready ? async (request) => (await ready, answer(request)) : answer, host, port);
      endpoints.add(endpoint);
      return {
        url: endpoint.url,
        close: async () => {
          if (!endpoints.delete(endpoint)) return;
          await endpoint.close();
        },
      };
    },
    async stop() {
      const open = [...endpoints];
      endpoints.clear();
      await Promise.all(open.map((endpoint) => endpoint.close()));
    },
  };
}
