import type { Address, VoucherDomain } from './voucher';

/** One chain where vouchers are redeemed, as configured (chain/chain-config.ts reads it from the environment). */
export interface ChainSettings {
  chainId: number;
  rpcUrl: string;
  /** The ClaimManager (the EIP-712 domain's verifyingContract), lowercase. */
  claimManager: Address;
  /** Blocks on top of a block before its logs and state count as final. */
  confirmations: number;
  /** The first block to read when the chain has no cursor yet; unset: the chain's final block at that moment. */
  startBlock: bigint | undefined;
}

/** The configured chains and the EIP-712 domain of each (name and version shared, chain and contract its own). */
export class ChainDirectory {
  private readonly byId: ReadonlyMap<number, ChainSettings>;

  constructor(
    chains: readonly ChainSettings[],
    private readonly domainName: string,
    private readonly domainVersion: string,
  ) {
    this.byId = new Map(chains.map((chain) => [chain.chainId, chain]));
  }

  get chains(): ChainSettings[] {
    return [...this.byId.values()];
  }

  chain(chainId: number | bigint): ChainSettings | undefined {
    return this.byId.get(Number(chainId));
  }

  domainOf(chain: ChainSettings): VoucherDomain {
    return { name: this.domainName, version: this.domainVersion, chainId: chain.chainId, verifyingContract: chain.claimManager };
  }
}
