import path from 'node:path';
import type { Abi, Address } from 'viem' with { 'resolution-mode': 'import' };
import { claimManagerAbi } from '../../contracts/generated/claim-manager';
import { contractArtifact } from '../../scripts/compile-contracts';
import { DEV_ACCOUNT, DEV_CHAIN_ID, DEV_CLAIM_MANAGER, DEV_ETH_BALANCE, DEV_TOKEN, DEV_WALLET } from '../../scripts/dev-chain/constants';
import { type DevChain, startDevChain } from '../../scripts/dev-chain/dev-chain';
import { DEVELOPMENT_SIGNER_KEY } from '../../services/claim/chain/chain-config';
import { endOf, freePort, startTs } from '../helpers/processes';

const MAIN = path.resolve(__dirname, '../../scripts/dev-chain/main.ts');

/**
 * `npm start`'s dev chain (scripts/dev-chain/): the contracts at the addresses the README and
 * constants.ts name, the signers authorised, the accounts funded; a new genesis on every start; and
 * its process's refusals (production, a port that is taken).
 */
describe('the dev chain', () => {
  const started: DevChain[] = [];
  afterAll(async () => {
    for (const chain of started) await chain.stop();
  });

  async function start(signers: string[]) {
    const chain = await startDevChain({ port: 0, signers, domainName: 'Referral ClaimManager', domainVersion: '1' });
    started.push(chain);
    await chain.deployed;
    const { createPublicClient, http } = await import('viem');
    return { chain, client: createPublicClient({ transport: http(chain.url, { retryCount: 0 }) }) };
  }

  it('deploys the ClaimManager and the DUSD token where constants.ts says, authorises the signers and funds the development accounts', async () => {
    const { privateKeyToAccount } = await import('viem/accounts');
    const signers = [privateKeyToAccount(`0x${'1b'.repeat(32)}`).address, privateKeyToAccount(`0x${'2c'.repeat(32)}`).address];
    const { chain, client } = await start(signers);
    const deployment = await chain.deployed;
    expect(deployment.claimManager).toBe(DEV_CLAIM_MANAGER);
    expect(deployment.token).toBe(DEV_TOKEN.address);
    expect(await client.getChainId()).toBe(DEV_CHAIN_ID);

    const manager: Abi = claimManagerAbi;
    const token = (await contractArtifact('TestToken')).abi;
    const read = (address: string, abi: Abi, functionName: string, args: unknown[] = []) =>
      client.readContract({ address: address as Address, abi, functionName, args });
    for (const signer of signers) expect(await read(DEV_CLAIM_MANAGER, manager, 'isSigner', [signer])).toBe(true);
    expect(await read(DEV_CLAIM_MANAGER, manager, 'isSigner', [DEV_ACCOUNT.address])).toBe(false);
    expect(await read(DEV_CLAIM_MANAGER, manager, 'requiredSigners')).toBe(2n);
    expect(await read(DEV_CLAIM_MANAGER, manager, 'owner')).toBe(DEV_ACCOUNT.address);
    expect(await read(DEV_TOKEN.address, token, 'balanceOf', [DEV_ACCOUNT.address])).toBe(DEV_TOKEN.supply);
    expect(await read(DEV_TOKEN.address, token, 'decimals')).toBe(DEV_TOKEN.decimals);
    expect(await read(DEV_TOKEN.address, token, 'symbol')).toBe(DEV_TOKEN.symbol);
    expect(await client.getBalance({ address: DEV_WALLET.address })).toBe(DEV_ETH_BALANCE);
    // The keys the README prints are the accounts' keys.
    expect(privateKeyToAccount(DEV_ACCOUNT.privateKey).address).toBe(DEV_ACCOUNT.address);
    expect(privateKeyToAccount(DEV_WALLET.privateKey).address).toBe(DEV_WALLET.address);
  });

  it('is a new chain on every start: the same addresses, another genesis block', async () => {
    const { privateKeyToAccount } = await import('viem/accounts');
    const signer = privateKeyToAccount(DEVELOPMENT_SIGNER_KEY).address;
    const [one, two] = [await start([signer]), await start([signer])];
    const [first, second] = [await one.chain.deployed, await two.chain.deployed];
    expect([second.claimManager, second.token]).toEqual([first.claimManager, first.token]);
    expect(second.genesisHash).not.toBe(first.genesisHash);
    expect((await one.client.getBlock({ blockNumber: 0n })).hash).toBe(first.genesisHash);
  });

  it('answers a browser’s CORS preflight, as Hardhat’s and Anvil’s nodes do', async () => {
    const { chain } = await start([DEV_ACCOUNT.address]);
    const response = await fetch(chain.url, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:8080', 'access-control-request-method': 'POST' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-headers')).toBe('content-type');
  });

  it('as a process, refuses production and a taken port with the configuration exit code, naming what to change', async () => {
    const production = startTs(MAIN, { env: { ...process.env, NODE_ENV: 'production', DEV_CHAIN_PORT: String(await freePort()) } });
    expect(await endOf(production, 30_000)).toEqual({ code: 78, signal: null });
    expect(production.output()).toContain('dev-chain: failed to start: invalid configuration:\n  NODE_ENV: the dev chain is for development');

    const { chain } = await start([DEV_ACCOUNT.address]);
    const taken = startTs(MAIN, { env: { ...process.env, NODE_ENV: 'development', DEV_CHAIN_PORT: new URL(chain.url).port } });
    expect(await endOf(taken, 30_000)).toEqual({ code: 78, signal: null });
    expect(taken.output()).toContain(
      `dev-chain: failed to start: ${new URL(chain.url).host} is already in use by another process: set DEV_CHAIN_PORT to a free port`,
    );
  }, 90_000);
});
