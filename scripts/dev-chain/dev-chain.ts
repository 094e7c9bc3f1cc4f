/**
 * `npm start`'s dev chain: a fresh EDR chain (edr-chain.ts) with the ClaimManager and a test ERC-20
 * deployed at the addresses of constants.ts, the voucher signers authorised, and the development
 * accounts funded. Its state lives in memory: every start is a new chain (a new genesis block).
 */
import { randomBytes } from 'node:crypto';
import type { Abi, Address, Hex } from 'viem' with { 'resolution-mode': 'import' };
import { contractArtifact } from '../compile-contracts';
import { DEV_ACCOUNT, DEV_CHAIN_HOST, DEV_CHAIN_ID, DEV_CLAIM_MANAGER, DEV_ETH_BALANCE, DEV_TOKEN, DEV_WALLET } from './constants';
import { type EdrChain, startEdrChain } from './edr-chain';

export interface DevChainOptions {
  /** 0: a free port. */
  port: number;
  host?: string;
  /** The voucher signers the ClaimManager authorises (all of them required). */
  signers: readonly string[];
  /** The ClaimManager's EIP-712 domain, as the claim service signs for it. */
  domainName: string;
  domainVersion: string;
}

export interface DevChain {
  chain: EdrChain;
  url: string;
  /** Settles once the contracts are deployed (requests over HTTP wait for it). */
  deployed: Promise<DevChainDeployment>;
  stop(): Promise<void>;
}

export interface DevChainDeployment {
  claimManager: Address;
  token: Address;
  /** The genesis block's hash: a new one on every start. */
  genesisHash: Hex;
  /** The last block of the deployment; the chain is ready from here on. */
  blockNumber: bigint;
}

/**
 * Takes the port at once, then deploys; a JSON-RPC request over HTTP that arrives meanwhile is
 * answered once the deployment is done, so a client started beside it never sees a half-built chain.
 */
export async function startDevChain(options: DevChainOptions): Promise<DevChain> {
  const chain = await startEdrChain({
    chainId: DEV_CHAIN_ID,
    funded: [
      ...[DEV_ACCOUNT, DEV_WALLET].map(({ address }) => ({ address, balance: DEV_ETH_BALANCE })),
      // One wei at a random address: the genesis block differs from every earlier start's even
      // within the same second (its time is in seconds), so a watcher always notices the new chain.
      { address: `0x${randomBytes(20).toString('hex')}`, balance: 1n },
    ],
  });
  const deployed = deploy(chain, options);
  // Awaited by whoever starts the chain; the endpoint waits on it without failing with it.
  const ready = deployed.catch(() => undefined);
  let endpoint;
  try {
    endpoint = await chain.serveHttp({ host: options.host ?? DEV_CHAIN_HOST, port: options.port, ready });
  } catch (error) {
    await ready;
    throw error;
  }
  return { chain, url: endpoint.url, deployed, stop: () => chain.stop() };
}

async function deploy(chain: EdrChain, options: DevChainOptions): Promise<DevChainDeployment> {
  const { createPublicClient, createWalletClient, custom, defineChain, getAddress } = await import('viem');
  const { privateKeyToAccount } = await import('viem/accounts');
  const account = privateKeyToAccount(DEV_ACCOUNT.privateKey);
  const definition = defineChain({
    id: DEV_CHAIN_ID,
    name: 'Dev chain',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [] } },
  });
  const transport = custom(chain.provider, { retryCount: 0 });
  const client = createPublicClient({ chain: definition, transport, pollingInterval: 10 });
  const wallet = createWalletClient({ account, chain: definition, transport, pollingInterval: 10 });

  const confirmed = async (hash: Hex, what: string) => {
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`dev chain: ${what} reverted`);
    return receipt;
  };
  const create = async (name: string, args: readonly unknown[], expected: string): Promise<{ address: Address; abi: Abi }> => {
    const { abi, bytecode } = await contractArtifact(name);
    const receipt = await confirmed(await wallet.deployContract({ abi, bytecode, args }), `deploying ${name}`);
    const address = getAddress(receipt.contractAddress ?? '0x');
    // Only a changed deployment order (or a chain that was not fresh) can move it.
    if (address !== getAddress(expected))
      throw new Error(`dev chain: ${name} was deployed at ${address}, not at ${expected} (scripts/dev-chain/constants.ts)`);
    return { address, abi };
  };

  const manager = await create(
    'ClaimManager',
    [account.address, options.domainName, options.domainVersion, options.signers.map((signer) => getAddress(signer)), BigInt(options.signers.length)],
    DEV_CLAIM_MANAGER,
  );
  const token = await create('TestToken', [DEV_TOKEN.name, DEV_TOKEN.symbol, DEV_TOKEN.decimals], DEV_TOKEN.address);
  const minted = await confirmed(
    await wallet.writeContract({ address: token.address, abi: token.abi, functionName: 'mint', args: [account.address, DEV_TOKEN.supply] }),
    'minting the test token',
  );
  const genesis = await client.getBlock({ blockNumber: 0n });
  return { claimManager: manager.address, token: token.address, genesisHash: genesis.hash, blockNumber: minted.blockNumber };
}
