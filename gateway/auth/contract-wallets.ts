import { ethereum } from './ethereum';

/** The chains whose contract wallets can be asked: CHAIN_RPC_URLS by chain id, and how long one may take to answer. */
export interface ChainAccess {
  rpcUrls: ReadonlyMap<number, string>;
  timeoutMs: number;
}

/** `unreachable`: the chain did not answer (down, timed out, rate-limited), so nothing is known. */
export type ChainVerdict = 'valid' | 'invalid' | 'unreachable';

type Address = `0x${string}`;
/** A JSON-RPC endpoint, untyped: this file only forwards what viem asks. */
type RpcRequest = (args: { method: string; params?: unknown }) => Promise<unknown>;

/**
 * Signatures of smart-contract accounts, checked on their chain with viem's verifyMessage: the
 * account's EIP-1271 `isValidSignature(hash, signature)` answering 0x1626ba7e, an ERC-6492 signature
 * of an account not deployed yet, or a plain EIP-191 signature when the address has no code; all in
 * one eth_call of the universal validator. viem reads any failed call as "not valid", so the
 * transport notes whether the node answered at all: a chain that did not is `unreachable`, never a
 * refusal of the signature.
 */
export class ContractWallets {
  private readonly nodes = new Map<number, Promise<RpcRequest>>();

  constructor(private readonly chains: ChainAccess) {}

  /** Whether `chainId` has a JSON-RPC endpoint. */
  has(chainId: number): boolean {
    return this.chains.rpcUrls.has(chainId);
  }

  /** Every chain with an endpoint. */
  chainIds(): number[] {
    return [...this.chains.rpcUrls.keys()];
  }

  /** Whether `address` signed `message` on chain `chainId` (which must be one of chainIds()). */
  async verify(chainId: number, address: Address, message: string, signature: Address): Promise<ChainVerdict> {
    const { createPublicClient, custom, RpcError, LimitExceededRpcError } = await ethereum();
    const node = await this.node(chainId);
    let unreachable = false;
    const transport = custom(
      {
        request: async (args: { method: string; params?: unknown }) => {
          try {
            return await node(args);
          } catch (error) {
            // A JSON-RPC error is the node's answer (a revert: not valid), except "limit exceeded".
            if (!(error instanceof RpcError) || error instanceof LimitExceededRpcError) unreachable = true;
            throw error;
          }
        },
      },
      { retryCount: 0 },
    );
    const client = createPublicClient({ transport });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.chains.timeoutMs);
    });
    try {
      const answer = await Promise.race([client.verifyMessage({ address, message, signature }).catch(() => false), deadline]);
      if (answer === true) return 'valid';
      return answer === 'timeout' || unreachable ? 'unreachable' : 'invalid';
    } finally {
      clearTimeout(timer);
    }
  }

  /** One HTTP transport per chain, without retries: a request waits at most timeoutMs. */
  private node(chainId: number): Promise<RpcRequest> {
    const known = this.nodes.get(chainId);
    if (known) return known;
    const url = this.chains.rpcUrls.get(chainId);
    if (url === undefined) return Promise.reject(new Error(`chain ${chainId} has no JSON-RPC URL`));
    const node = ethereum().then(({ http }): RpcRequest => http(url, { timeout: this.chains.timeoutMs, retryCount: 0 })({ retryCount: 0 }).request);
    this.nodes.set(chainId, node);
    return node;
  }
}
