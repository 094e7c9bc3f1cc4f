/**
 * What `npm start`'s dev chain holds, known before it starts: the chain id, its accounts and the
 * addresses of its contracts. The contracts are deployed by the development account from nonce 0
 * on a fresh chain every time, and a CREATE address follows from the deployer and its nonce only,
 * so these are the same on every start and every machine (dev-chain.ts checks each deployment
 * lands where this file says).
 *
 * The keys are Hardhat's and Anvil's first two development accounts: published in their
 * documentation, so ANYONE can spend from them on any chain. Development only.
 */
import { DEVELOPMENT_SIGNER_KEY } from '../../services/claim/chain/chain-config';

export const DEV_CHAIN_ID = 31_337;
export const DEFAULT_DEV_CHAIN_PORT = 8545;
/** The dev chain listens on the loopback interface only. */
export const DEV_CHAIN_HOST = '127.0.0.1';

/**
 * The development account: deploys the contracts and owns the ClaimManager, holds ETH and the whole
 * supply of the test token. Its key is also the claim service's development voucher signer (used when
 * CLAIM_SIGNER_KEYS is unset), which the ClaimManager authorises.
 */
export const DEV_ACCOUNT = {
  address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  privateKey: DEVELOPMENT_SIGNER_KEY,
} as const;

/** A second funded account (ETH only), for a browser wallet: an affiliate or user that pays its own claim's gas. */
export const DEV_WALLET = {
  address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
} as const;

/** ETH (wei) each development account starts with. */
export const DEV_ETH_BALANCE = 10_000n * 10n ** 18n;

/** contracts/ClaimManager.sol, deployed at the development account's nonce 0. */
export const DEV_CLAIM_MANAGER = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

/** contracts/test/TestToken.sol, deployed at nonce 1: an ERC-20 anyone can mint. */
export const DEV_TOKEN = {
  address: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
  name: 'Dev USD',
  symbol: 'DUSD',
  decimals: 6,
  /** Minted to the development account at start (1,000,000 DUSD). */
  supply: 1_000_000n * 10n ** 6n,
} as const;

/** The claim service's variables that make it sign for and watch the dev chain at `url`. */
export function devChainClaimEnv(url: string): Record<string, string> {
  return {
    CLAIM_MANAGER_ADDRESSES: `${DEV_CHAIN_ID}=${DEV_CLAIM_MANAGER}`,
    CHAIN_RPC_URLS: `${DEV_CHAIN_ID}=${url}`,
    CHAIN_START_BLOCKS: `${DEV_CHAIN_ID}=0`,
    // One node that mines a block per transaction and never reorganises: a block is final when mined.
    CHAIN_CONFIRMATIONS: '0',
  };
}
