/**
 * The claim-check half of the claim service's configuration: where vouchers are redeemed (per
 * chain: the ClaimManager, its EIP-712 domain, a JSON-RPC endpoint and how many confirmations make
 * a block final), who signs them, and how long they stay redeemable. Chains are written as
 * `chainId=value` pairs separated by commas, e.g. `CHAIN_RPC_URLS=8453=https://mainnet.base.org`.
 */
import { inspect } from 'node:util';
import { z } from 'zod';
import { chainPairs, rpcUrlProblem } from '../../platform/chain-urls';
import { optionalEnv } from '../../platform/config';
import { defaultGrpcAddress, SERVICE_CATALOG } from '../../platform/service-catalog';
import type { ChainSettings } from '../domain/chains';
import type { Address } from '../domain/voucher';

/**
 * Hardhat's and Anvil's first development account: published in their documentation, so anything
 * it signs is forgeable by anyone. Used only outside production when no key is configured, with a
 * loud warning at start-up (server.ts).
 */
export const DEVELOPMENT_SIGNER_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

export const claimCheckEnv = {
  /** Where the tax service listens: the tax gate asks it for effective tax statuses. */
  [SERVICE_CATALOG.tax.addressVariable]: z.string().default(defaultGrpcAddress(SERVICE_CATALOG.tax)),
  /** Voucher signer private keys (0x + 64 hex), comma-separated: one signature per key. Required in production. */
  CLAIM_SIGNER_KEYS: optionalEnv(z.string()),
  /** How long a voucher can be redeemed after it is signed: its deadline is close time + this. */
  CLAIM_VOUCHER_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(366 * 86_400)
    .default(7 * 86_400),
  /** The EIP-712 domain's name and version, as the ClaimManager was deployed with. */
  CLAIM_EIP712_NAME: z.string().min(1).max(100).default('Referral ClaimManager'),
  CLAIM_EIP712_VERSION: z.string().min(1).max(32).default('1'),
  /** The ClaimManager of each chain (the domain's verifyingContract): `chainId=0x…,…`. */
  CLAIM_MANAGER_ADDRESSES: optionalEnv(z.string()),
  /** A JSON-RPC endpoint of each chain of CLAIM_MANAGER_ADDRESSES: `chainId=https://…,…`. */
  CHAIN_RPC_URLS: optionalEnv(z.string()),
  /** Blocks on top of a block before its logs count (the same for every chain). */
  CHAIN_CONFIRMATIONS: z.coerce.number().int().min(0).max(10_000).default(12),
  /** Where the watcher starts on a chain it has never read (the ClaimManager's deployment block): `chainId=block,…`. Unset: the chain's final block when it first runs. */
  CHAIN_START_BLOCKS: optionalEnv(z.string()),
  /** Blocks per eth_getLogs request. */
  CHAIN_LOG_BLOCK_RANGE: z.coerce.number().int().min(1).max(1_000_000).default(2_000),
  /** How often each chain is read for Claimed logs and expired vouchers. */
  CHAIN_WATCH_EVERY_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
};

/** Private keys that print as nothing: configuration objects may end up in a log. */
export class SignerKeys {
  readonly #keys: readonly string[];

  constructor(keys: readonly string[]) {
    this.#keys = keys;
  }

  reveal(): readonly string[] {
    return this.#keys;
  }

  get count(): number {
    return this.#keys.length;
  }

  toJSON(): string {
    return `[${this.#keys.length} signer key(s), redacted]`;
  }

  toString(): string {
    return this.toJSON();
  }

  [inspect.custom](): string {
    return this.toJSON();
  }
}

export interface VoucherSettings {
  signerKeys: SignerKeys;
  /** True when no key was configured and the public development key signs. */
  developmentSigner: boolean;
  ttlSeconds: number;
  domainName: string;
  domainVersion: string;
  logBlockRange: number;
  watchEveryMs: number;
}

type ClaimCheckEnv = z.output<z.ZodObject<typeof claimCheckEnv>> & { NODE_ENV: string };

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;

/** Every problem at once, so a deployment is fixed in one pass; z.NEVER when there is one. */
export function claimCheckSettings(env: ClaimCheckEnv, ctx: z.RefinementCtx): { chains: ChainSettings[]; vouchers: VoucherSettings } {
  let ok = true;
  const problem = (path: string, message: string) => {
    ok = false;
    ctx.addIssue({ code: 'custom', path: [path], message });
  };

  const managers = chainPairs('CLAIM_MANAGER_ADDRESSES', env.CLAIM_MANAGER_ADDRESSES, ctx);
  const urls = chainPairs('CHAIN_RPC_URLS', env.CHAIN_RPC_URLS, ctx);
  const starts = chainPairs('CHAIN_START_BLOCKS', env.CHAIN_START_BLOCKS, ctx);
  if (!managers || !urls || !starts) ok = false;
  const chains: ChainSettings[] = [];
  for (const [chainId, manager] of managers ?? []) {
    const url = urls?.get(chainId);
    if (!ADDRESS.test(manager)) problem('CLAIM_MANAGER_ADDRESSES', `chain ${chainId}: ${manager.slice(0, 50)} is not 0x followed by 40 hex digits`);
    if (url === undefined) {
      problem(
        'CHAIN_RPC_URLS',
        `chain ${chainId} has a ClaimManager (CLAIM_MANAGER_ADDRESSES) but no JSON-RPC URL: its vouchers could never be watched`,
      );
      continue;
    }
    const urlProblem = rpcUrlProblem(chainId, url);
    if (urlProblem) problem('CHAIN_RPC_URLS', urlProblem);
    const start = starts?.get(chainId);
    if (start !== undefined && !/^(0|[1-9][0-9]{0,18})$/.test(start))
      problem('CHAIN_START_BLOCKS', `chain ${chainId}: ${start.slice(0, 30)} is not a block number`);
    chains.push({
      chainId,
      rpcUrl: url,
      claimManager: manager.toLowerCase() as Address,
      confirmations: env.CHAIN_CONFIRMATIONS,
      startBlock: start === undefined || !/^[0-9]+$/.test(start) ? undefined : BigInt(start),
    });
  }
  for (const chainId of urls?.keys() ?? []) {
    if (!managers?.has(chainId))
      problem('CLAIM_MANAGER_ADDRESSES', `chain ${chainId} has a JSON-RPC URL (CHAIN_RPC_URLS) but no ClaimManager address`);
  }
  for (const chainId of starts?.keys() ?? []) {
    if (!managers?.has(chainId)) problem('CHAIN_START_BLOCKS', `chain ${chainId} is not a chain of CLAIM_MANAGER_ADDRESSES`);
  }
  // Outside production no chain is fine (npm start runs its dev chain then); in production it would
  // leave every claim check unclosable, so it is a configuration error like a missing signer key.
  if (env.NODE_ENV === 'production' && managers?.size === 0 && urls?.size === 0) {
    problem(
      'CLAIM_MANAGER_ADDRESSES',
      'CLAIM_MANAGER_ADDRESSES and CHAIN_RPC_URLS must name at least one chain when NODE_ENV=production: without one no claim check can close',
    );
  }

  const development = env.CLAIM_SIGNER_KEYS === undefined;
  const keys = development
    ? [DEVELOPMENT_SIGNER_KEY]
    : env
        .CLAIM_SIGNER_KEYS!.split(',')
        .map((key) => key.trim())
        .filter(Boolean);
  if (development) {
    if (env.NODE_ENV === 'production') problem('CLAIM_SIGNER_KEYS', 'CLAIM_SIGNER_KEYS must be set when NODE_ENV=production');
  } else {
    // A bad key is named by its position only: its text may be most of a real key.
    keys.forEach((key, index) => {
      if (!PRIVATE_KEY.test(key)) problem('CLAIM_SIGNER_KEYS', `key #${index + 1} is not 0x followed by 64 hex digits`);
    });
    if (keys.length === 0) problem('CLAIM_SIGNER_KEYS', 'lists no key');
    if (new Set(keys.map((key) => key.toLowerCase())).size !== keys.length) problem('CLAIM_SIGNER_KEYS', 'lists a key twice');
    if (env.NODE_ENV === 'production' && keys.some((key) => key.toLowerCase() === DEVELOPMENT_SIGNER_KEY)) {
      problem('CLAIM_SIGNER_KEYS', 'holds the public development key, which anyone can sign with');
    }
  }

  if (!ok) return z.NEVER;
  return {
    chains,
    vouchers: {
      signerKeys: new SignerKeys(keys),
      developmentSigner: development,
      ttlSeconds: env.CLAIM_VOUCHER_TTL_SECONDS,
      domainName: env.CLAIM_EIP712_NAME,
      domainVersion: env.CLAIM_EIP712_VERSION,
      logBlockRange: env.CHAIN_LOG_BLOCK_RANGE,
      watchEveryMs: env.CHAIN_WATCH_EVERY_MS,
    },
  };
}
