/**
 * An Ethereum chain inside the test process: the product's EDR chain (scripts/dev-chain/edr-chain.ts,
 * the engine of `npm start`'s dev chain) with funded test accounts and viem clients. Tests talk to it
 * with viem through an EIP-1193 provider, or over HTTP JSON-RPC (`serveHttp`) as a deployed claim
 * service would (CHAIN_RPC_URLS). Blocks are mined on every transaction; `mine` and `increaseTime`
 * move the chain on by hand.
 */
import type { Abi, Address, Chain, Hex, PublicClient, Transport, WalletClient } from 'viem' with { 'resolution-mode': 'import' };
import type { PrivateKeyAccount } from 'viem/accounts' with { 'resolution-mode': 'import' };
import { type Eip1193Provider, type HttpEndpoint, startEdrChain } from '../../scripts/dev-chain/edr-chain';
import { contractArtifact } from '../../scripts/compile-contracts';
import { claimManagerAbi } from '../../contracts/generated/claim-manager';

export { type Eip1193Provider, type HttpEndpoint } from '../../scripts/dev-chain/edr-chain';

const viem = () => import('viem');
const viemAccounts = () => import('viem/accounts');

export type TestWalletClient = WalletClient<Transport, Chain, PrivateKeyAccount>;

export interface TestAccount {
  address: Address;
  privateKey: Hex;
  account: PrivateKeyAccount;
  /** Signs locally and sends raw transactions, as a user's wallet does. */
  wallet: TestWalletClient;
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

/** ClaimManager and a test token deployed on a test chain, with the accounts that use them. */
export interface ClaimManagerDeployment {
  chain: TestChain;
  manager: Address;
  token: Address;
  tokenAbi: Abi;
  /** The project account: deposits under its address, and every project of the tests names it. */
  projectAccount: TestAccount;
  /** Sends users' claim transactions (anyone may). */
  relayer: TestAccount;
  balanceOf(holder: string): Promise<bigint>;
}

export interface ChainOptions {
  chainId?: number;
  accounts?: number;
  /** Wei per account. */
  balance?: bigint;
  /** The genesis block's time; later blocks advance from it with the wall clock. Default: now. */
  startTime?: Date;
}

/** Fixed keys, so a failing run can be replayed; never used outside tests. */
async function testKeys(count: number): Promise<Hex[]> {
  const { keccak256, stringToHex } = await viem();
  return Array.from({ length: count }, (_, index) => keccak256(stringToHex(`referral platform test account ${index}`)));
}

export async function startChain(options: ChainOptions = {}): Promise<TestChain> {
  const { createPublicClient, createWalletClient, custom, defineChain, getAddress, hexToBigInt, numberToHex } = await viem();
  const { privateKeyToAccount } = await viemAccounts();
  const chainId = options.chainId ?? 31_337;
  const keys = await testKeys(options.accounts ?? 5);
  const signers = keys.map((key) => privateKeyToAccount(key));
  const balance = options.balance ?? 10n ** 22n;
  const edr = await startEdrChain({
    chainId,
    ownedKeys: keys,
    funded: signers.map((signer) => ({ address: signer.address, balance })),
    startTime: options.startTime,
  });
  const provider = edr.provider;

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
    serveHttp: () => edr.serveHttp(),
    stop: () => edr.stop(),
  };
}

/**
 * A chain of three accounts (ClaimManager's owner, the project account, a relayer) with a test token
 * (6 decimals) and ClaimManager deployed, authorising `signers` (every one of them required), and
 * `deposit` of the token minted to the project account and deposited under its address.
 */
export async function deployClaimManager(options: { startTime: Date; signers: Address[]; deposit: bigint }): Promise<ClaimManagerDeployment> {
  const chain = await startChain({ accounts: 3, startTime: options.startTime });
  const [owner, projectAccount, relayer] = chain.accounts as [TestAccount, TestAccount, TestAccount];
  const { address: token, abi: tokenAbi } = await chain.deploy('TestToken', ['Test USD', 'TUSD', 6]);
  const { address: manager } = await chain.deploy('ClaimManager', [
    owner.address,
    'Referral ClaimManager',
    '1',
    options.signers,
    BigInt(options.signers.length),
  ]);
  const send = async (address: Address, abi: Abi, functionName: string, args: unknown[]) => {
    const hash = await projectAccount.wallet.writeContract({ address, abi, functionName, args });
    if ((await chain.publicClient.waitForTransactionReceipt({ hash })).status !== 'success') throw new Error(`${functionName} failed`);
  };
  await send(token, tokenAbi, 'mint', [projectAccount.address, options.deposit]);
  await send(token, tokenAbi, 'approve', [manager, options.deposit]);
  await send(manager, claimManagerAbi, 'deposit', [projectAccount.address, token, options.deposit]);
  return {
    chain,
    manager,
    token,
    tokenAbi,
    projectAccount,
    relayer,
    balanceOf: (holder) =>
      chain.publicClient.readContract({ address: token, abi: tokenAbi, functionName: 'balanceOf', args: [holder] }) as Promise<bigint>,
  };
}
