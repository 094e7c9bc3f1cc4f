import { inspect } from 'node:util';
import { DEVELOPMENT_SIGNER_KEY } from '../../services/claim/chain/chain-config';
import { claimConfigSchema } from '../../services/claim/config';
import { claimManifest } from '../../services/claim/manifest';
import { loadConfig } from '../../services/platform/config';
import { startService } from '../../services/platform/service-manifest';
import { TestClock } from '../helpers/clock';
import { LogCapture } from '../helpers/log-capture';
import { createTestDatabase, deleteKeys, newQueuePrefix } from '../helpers/stack';
import { TEST_REDIS_URL } from '../setup/test-env';

const KEY_A = `0x${'a1'.repeat(32)}`;
const KEY_B = `0x${'b2'.repeat(32)}`;
const MANAGER = '0x00000000000000000000000000000000000C1A1E';

/** The claim service's voucher and chain configuration (services/claim/chain/chain-config.ts). */
describe('claim-check configuration', () => {
  it('reads chains as chainId=value pairs, each ClaimManager with its JSON-RPC endpoint, start block and confirmations', () => {
    const config = loadConfig(claimConfigSchema, {
      CLAIM_SIGNER_KEYS: `${KEY_A}, ${KEY_B}`,
      CLAIM_MANAGER_ADDRESSES: `8453=${MANAGER},1=${MANAGER}`,
      CHAIN_RPC_URLS: '8453=https://base.example/rpc?key=abc,1=http://127.0.0.1:8545',
      CHAIN_START_BLOCKS: '8453=123456',
      CHAIN_CONFIRMATIONS: '5',
      CLAIM_VOUCHER_TTL_SECONDS: '3600',
    });
    expect(config.chains).toEqual([
      { chainId: 8453, rpcUrl: 'https://base.example/rpc?key=abc', claimManager: MANAGER.toLowerCase(), confirmations: 5, startBlock: 123_456n },
      { chainId: 1, rpcUrl: 'http://127.0.0.1:8545', claimManager: MANAGER.toLowerCase(), confirmations: 5, startBlock: undefined },
    ]);
    expect(config.vouchers).toMatchObject({ developmentSigner: false, ttlSeconds: 3600, domainName: 'Referral ClaimManager', domainVersion: '1' });
    expect(config.vouchers.signerKeys.reveal()).toEqual([KEY_A, KEY_B]);
    // No chains: claims cannot close, nothing else changes.
    expect(loadConfig(claimConfigSchema, {}).chains).toEqual([]);
  });

  it('signs with the public development key outside production, and refuses to start without keys (or with it) in production', () => {
    const development = loadConfig(claimConfigSchema, {});
    expect(development.vouchers.developmentSigner).toBe(true);
    expect(development.vouchers.signerKeys.reveal()).toEqual([DEVELOPMENT_SIGNER_KEY]);
    expect(() => loadConfig(claimConfigSchema, { NODE_ENV: 'production' })).toThrow(
      /CLAIM_SIGNER_KEYS: CLAIM_SIGNER_KEYS must be set when NODE_ENV=production/,
    );
    expect(() => loadConfig(claimConfigSchema, { NODE_ENV: 'production', CLAIM_SIGNER_KEYS: DEVELOPMENT_SIGNER_KEY })).toThrow(
      /public development key/,
    );
    const chain = { CLAIM_MANAGER_ADDRESSES: `8453=${MANAGER}`, CHAIN_RPC_URLS: '8453=https://base.example/rpc' };
    expect(loadConfig(claimConfigSchema, { NODE_ENV: 'production', CLAIM_SIGNER_KEYS: KEY_A, ...chain }).vouchers.developmentSigner).toBe(false);
  });

  it('refuses to start in production without a chain (outside production, npm start runs its dev chain instead)', () => {
    const refusal = /CLAIM_MANAGER_ADDRESSES: CLAIM_MANAGER_ADDRESSES and CHAIN_RPC_URLS must name at least one chain when NODE_ENV=production/;
    expect(() => loadConfig(claimConfigSchema, { NODE_ENV: 'production', CLAIM_SIGNER_KEYS: KEY_A })).toThrow(refusal);
    // Empty values, as a compose file passes an unset variable, are no chain either.
    expect(() =>
      loadConfig(claimConfigSchema, { NODE_ENV: 'production', CLAIM_SIGNER_KEYS: KEY_A, CLAIM_MANAGER_ADDRESSES: '', CHAIN_RPC_URLS: '' }),
    ).toThrow(refusal);
    expect(loadConfig(claimConfigSchema, { NODE_ENV: 'development' }).chains).toEqual([]);
  });

  it('names every problem at once, and a bad key only by its position', () => {
    const almostAKey = `0x${'c3'.repeat(31)}zz`;
    let message = '';
    try {
      loadConfig(claimConfigSchema, {
        CLAIM_SIGNER_KEYS: `${KEY_A},${almostAKey},${KEY_A}`,
        CLAIM_MANAGER_ADDRESSES: '8453=0x1234,10=' + MANAGER,
        CHAIN_RPC_URLS: '8453=ftp://nope,137=https://polygon.example',
        CHAIN_START_BLOCKS: '1=5',
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('CLAIM_SIGNER_KEYS: key #2 is not 0x followed by 64 hex digits');
    expect(message).toContain('CLAIM_SIGNER_KEYS: lists a key twice');
    expect(message).toContain('CLAIM_MANAGER_ADDRESSES: chain 8453: 0x1234 is not 0x followed by 40 hex digits');
    expect(message).toContain('CHAIN_RPC_URLS: chain 8453: the URL must be http:// or https://');
    expect(message).toContain('CHAIN_RPC_URLS: chain 10 has a ClaimManager (CLAIM_MANAGER_ADDRESSES) but no JSON-RPC URL');
    expect(message).toContain('CLAIM_MANAGER_ADDRESSES: chain 137 has a JSON-RPC URL (CHAIN_RPC_URLS) but no ClaimManager address');
    expect(message).toContain('CHAIN_START_BLOCKS: chain 1 is not a chain of CLAIM_MANAGER_ADDRESSES');
    expect(message).not.toContain(almostAKey.slice(2, 20));
    expect(message).not.toContain(KEY_A.slice(2, 20));
    expect(() => loadConfig(claimConfigSchema, { CHAIN_RPC_URLS: '8453' })).toThrow(/CHAIN_RPC_URLS: "8453" is not chainId=value/);
  });

  it('reads CONVERSION_BACKFILL_DAYS (365 by default, 0 to 36,500 whole days) and names it when it is wrong', () => {
    expect(loadConfig(claimConfigSchema, {}).CONVERSION_BACKFILL_DAYS).toBe(365);
    expect(loadConfig(claimConfigSchema, { CONVERSION_BACKFILL_DAYS: '0' }).CONVERSION_BACKFILL_DAYS).toBe(0);
    expect(loadConfig(claimConfigSchema, { CONVERSION_BACKFILL_DAYS: '36500' }).CONVERSION_BACKFILL_DAYS).toBe(36_500);
    for (const wrong of ['-1', '36501', '1.5', 'a year']) {
      expect(() => loadConfig(claimConfigSchema, { CONVERSION_BACKFILL_DAYS: wrong })).toThrow(/CONVERSION_BACKFILL_DAYS/);
    }
  });

  it('never shows a signer key in the configuration, printed or serialised', () => {
    const config = loadConfig(claimConfigSchema, { CLAIM_SIGNER_KEYS: `${KEY_A},${KEY_B}` });
    const shown = [JSON.stringify(config), inspect(config, { depth: 10 }), String(config.vouchers.signerKeys)].join('\n');
    for (const key of [KEY_A, KEY_B]) expect(shown).not.toContain(key.slice(2, 34));
    expect(shown).toContain('2 signer key(s), redacted');
  });

  it('warns loudly at start-up when the development key signs, naming its address and never the key', async () => {
    const database = await createTestDatabase();
    const prefix = newQueuePrefix();
    const logs = new LogCapture();
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: prefix,
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: '0',
      RUN_WORKERS: 'false',
    };
    const service = await startService(claimManifest, loadConfig(claimConfigSchema, env), { clock: new TestClock(), logger: logs.logger('claim') });
    try {
      const warning = logs.lines.find((line) => line.includes('CLAIM_SIGNER_KEYS is not set'));
      expect(warning).toContain('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
      expect(warning).toContain('"level":"warn"');
      expect(logs.text()).not.toContain(DEVELOPMENT_SIGNER_KEY.slice(2, 34));
    } finally {
      await service.stop();
      await deleteKeys(TEST_REDIS_URL, `${prefix}:*`);
      await database.drop();
    }
  });
});
