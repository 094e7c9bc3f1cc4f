/**
 * The dev chain as a process: `npm start` runs it as a member of the stack when no chain is
 * configured outside production (scripts/stack/members.ts). JSON-RPC on 127.0.0.1:DEV_CHAIN_PORT,
 * chain id 31337, the contracts and accounts of constants.ts. Its state is in memory: a restart
 * starts a new chain (the claim service's watcher notices the new genesis block and reads it anew).
 */
import { z } from 'zod';
import { claimCheckEnv, DEVELOPMENT_SIGNER_KEY } from '../../services/claim/chain/chain-config';
import { ConfigError, listenError, loadConfig } from '../../services/platform/config';
import { runProcess } from '../../services/platform/lifecycle';
import { DEFAULT_DEV_CHAIN_PORT, DEV_ACCOUNT, DEV_CHAIN_ID, DEV_TOKEN, DEV_WALLET } from './constants';
import { startDevChain } from './dev-chain';

const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;

export const devChainConfigSchema = z.object({
  NODE_ENV: z.string().default('development'),
  DEV_CHAIN_PORT: z.coerce.number().int().min(0).max(65_535).default(DEFAULT_DEV_CHAIN_PORT),
  // The claim service's own settings, so that the ClaimManager trusts what it signs.
  CLAIM_SIGNER_KEYS: claimCheckEnv.CLAIM_SIGNER_KEYS,
  CLAIM_EIP712_NAME: claimCheckEnv.CLAIM_EIP712_NAME,
  CLAIM_EIP712_VERSION: claimCheckEnv.CLAIM_EIP712_VERSION,
});

/** The signer addresses to authorise: those of CLAIM_SIGNER_KEYS, else the development signer's. */
async function signerAddresses(keys: string | undefined): Promise<string[]> {
  const { privateKeyToAccount } = await import('viem/accounts');
  const list = (keys ?? DEVELOPMENT_SIGNER_KEY)
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);
  list.forEach((key, index) => {
    // By position only: the text may be most of a real key. The claim service reports the same.
    if (!PRIVATE_KEY.test(key))
      throw new ConfigError(`invalid configuration:\n  CLAIM_SIGNER_KEYS: key #${index + 1} is not 0x followed by 64 hex digits`);
  });
  return list.map((key) => privateKeyToAccount(key as `0x${string}`).address);
}

runProcess('dev-chain', async () => {
  const config = loadConfig(devChainConfigSchema);
  if (config.NODE_ENV === 'production') {
    throw new ConfigError(
      'invalid configuration:\n  NODE_ENV: the dev chain is for development; production needs CLAIM_MANAGER_ADDRESSES and CHAIN_RPC_URLS of a real chain',
    );
  }
  const signers = await signerAddresses(config.CLAIM_SIGNER_KEYS);
  let devChain;
  try {
    devChain = await startDevChain({
      port: config.DEV_CHAIN_PORT,
      signers,
      domainName: config.CLAIM_EIP712_NAME,
      domainVersion: config.CLAIM_EIP712_VERSION,
    });
  } catch (error) {
    throw listenError(error, 'DEV_CHAIN_PORT', `127.0.0.1:${config.DEV_CHAIN_PORT}`);
  }
  const deployment = await devChain.deployed;
  const say = (line: string) => process.stderr.write(`dev-chain: ${line}\n`);
  say(`chain ${DEV_CHAIN_ID} answers JSON-RPC at ${devChain.url} (a new chain: genesis ${deployment.genesisHash}; its state is lost when it stops)`);
  say(
    `ClaimManager ${deployment.claimManager} (signers ${signers.join(', ')}); ${DEV_TOKEN.symbol} token ${deployment.token} (${DEV_TOKEN.decimals} decimals)`,
  );
  say(
    `development accounts, their keys PUBLIC (development only): ${DEV_ACCOUNT.address} (ETH, all the ${DEV_TOKEN.symbol}), ${DEV_WALLET.address} (ETH)`,
  );
  return { stop: () => devChain.stop() };
});
