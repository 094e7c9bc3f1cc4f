import path from 'node:path';
import { DEV_CLAIM_MANAGER } from '../../../scripts/dev-chain/constants';
import { stackConfigSchema, stackMembers } from '../../../scripts/stack/members';
import { loadConfig } from '../../../services/platform/config';
import { SERVICE_CATALOG } from '../../../services/platform/service-catalog';

const ROOT = '/app';
const membersOf = (env: Record<string, string>) => stackMembers(loadConfig(stackConfigSchema, env), ROOT);
const claimEnv = (env: Record<string, string>) => membersOf(env).find((member) => member.name === 'claim')!.env;

/** When `npm start` runs the dev chain (scripts/stack/members.ts), and what the claim service is told of it. */
describe('the dev chain as a member of npm start', () => {
  it('runs with no chain configured outside production: started first, stopped last, on DEV_CHAIN_PORT', () => {
    const members = membersOf({ DEV_CHAIN_PORT: '9545' });
    expect(members[0]).toEqual({
      name: 'dev-chain',
      entry: path.join(ROOT, 'scripts', 'dev-chain', `main${path.extname(__filename)}`),
      env: {},
      layer: -1,
      listens: [{ host: '127.0.0.1', port: 9545, variable: 'DEV_CHAIN_PORT', form: 'port' }],
    });
    expect(Math.min(...members.slice(1).map((member) => member.layer))).toBeGreaterThan(-1);
    expect(membersOf({})[0]!.listens![0]!.port).toBe(8545);
  });

  it('points the claim service, and only it, at the dev chain: final at once, watched every second unless set', () => {
    expect(claimEnv({ DEV_CHAIN_PORT: '9545' })).toMatchObject({
      CLAIM_MANAGER_ADDRESSES: `31337=${DEV_CLAIM_MANAGER}`,
      CHAIN_RPC_URLS: '31337=http://127.0.0.1:9545',
      CHAIN_START_BLOCKS: '31337=0',
      CHAIN_CONFIRMATIONS: '0',
      CHAIN_WATCH_EVERY_MS: '1000',
    });
    expect(claimEnv({ CHAIN_WATCH_EVERY_MS: '250' }).CHAIN_WATCH_EVERY_MS).toBe('250');
    // CHAIN_CONFIRMATIONS from a copied .env.example (12) would leave every redemption unread on a chain that mines only when asked.
    expect(claimEnv({ CHAIN_CONFIRMATIONS: '12' }).CHAIN_CONFIRMATIONS).toBe('0');
    for (const member of membersOf({}).filter((one) => one.name !== 'claim')) expect(Object.keys(member.env)).not.toContain('CHAIN_RPC_URLS');
  });

  it.each([
    ['NODE_ENV=production', { NODE_ENV: 'production' }],
    ['a chain of its own (CHAIN_RPC_URLS)', { CHAIN_RPC_URLS: '8453=https://base.example' }],
    ['a ClaimManager without a URL (the claim service names what is missing)', { CLAIM_MANAGER_ADDRESSES: `8453=${DEV_CLAIM_MANAGER}` }],
  ])('does not run with %s, and leaves the claim service’s chain settings alone', (_, env) => {
    const members = membersOf(env);
    expect(members.map((member) => member.name)).not.toContain('dev-chain');
    expect(claimEnv(env)).toEqual({ GRPC_HOST: '127.0.0.1', GRPC_PORT: String(SERVICE_CATALOG.claim.defaultGrpcPort) });
  });

  it('counts an empty CHAIN_RPC_URLS= (a copied .env.example) as unset', () => {
    expect(membersOf({ CHAIN_RPC_URLS: '', CLAIM_MANAGER_ADDRESSES: '' })[0]!.name).toBe('dev-chain');
  });
});
