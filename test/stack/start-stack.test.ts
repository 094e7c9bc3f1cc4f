import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { DEV_CLAIM_MANAGER, DEV_TOKEN } from '../../scripts/dev-chain/constants';
import { CATALOG } from '../../services/platform/service-catalog';
import { databaseUrl, runId, TEST_DB_PREFIX, TEST_REDIS_URL } from '../setup/test-env';
import { endOf, eventually, freePort, type NodeProcess, portIsFree, startTs } from '../helpers/processes';
import { deleteKeys, dropDatabase } from '../helpers/stack';

/**
 * `npm start` end to end: scripts/start-stack.ts with the real services, the gateway and the dev
 * chain, run from source through the TypeScript loader (a build would take longer than the whole
 * test), reading a .env file, on ports and a database of its own. The same as `npm start` after its
 * build, except that npm's part (it forwards SIGINT/SIGTERM to the supervisor, which `exec` makes its
 * direct child) is checked by hand, as the README says. The README's quick start runs against it as
 * it is written there.
 */
const ROOT = path.resolve(__dirname, '../..');
const database = `${TEST_DB_PREFIX}${runId()}_npm_start`;
const queuePrefix = `test:${runId()}:npm-start`;

let stack: NodeProcess;
let env: NodeJS.ProcessEnv;
let ports: { gateway: number; metrics: number; chain: number } & Record<(typeof CATALOG)[number]['name'], number>;
let envFile: string;
const platformKey = randomBytes(32).toString('hex');

beforeAll(async () => {
  // Every member on a port of its own, none on its default: another stack (a developer's, a bench)
  // may hold the defaults on the same machine.
  ports = { gateway: await freePort(), metrics: await freePort(), chain: await freePort() } as typeof ports;
  for (const service of CATALOG) ports[service.name] = await freePort();
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'npm-start-'));
  envFile = path.join(cwd, '.env');
  // As a newcomer's copy of .env.example would be: empty values mean "unset", and a variable set in
  // the environment (PORT here) wins over the file.
  writeFileSync(
    envFile,
    [
      '# copied from .env.example',
      `DATABASE_URL=${databaseUrl(database)}`,
      `PORT=${await freePort()}`,
      `PLATFORM_API_KEY=${platformKey}`,
      'SIWE_DOMAIN=',
      'SIWE_URI=',
      'SESSION_SECRET=',
      'TAX_ENCRYPTION_KEYS=',
      'TAX_ENCRYPTION_ACTIVE_KEY_ID=',
      'GRPC_PORT=20051',
      'LOG_LEVEL=warn',
      '',
    ].join('\n'),
  );
  env = { ...process.env };
  for (const name of Object.keys(env)) if (/^(DATABASE_URL|GRPC_|SIWE_|PLATFORM_API_KEY|NODE_ENV|CHAIN_|CLAIM_)/.test(name)) delete env[name];
  Object.assign(env, {
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: queuePrefix,
    HOST: '127.0.0.1',
    PORT: String(ports.gateway),
    METRICS_PORT: String(ports.metrics),
    ...Object.fromEntries(CATALOG.map((service) => [service.addressVariable, `127.0.0.1:${ports[service.name]}`])),
    SHUTDOWN_GRACE_MS: '5000',
    DB_POOL_MAX: '3',
    DEV_CHAIN_PORT: String(ports.chain),
  });
  stack = startTs(path.join(ROOT, 'scripts/start-stack.ts'), { env, cwd });
  await eventually(
    'the stack to be ready',
    async () => {
      if (stack.child.exitCode !== null) throw new Error(`the stack exited:\n${stack.output()}`);
      const response = await fetch(`http://127.0.0.1:${ports.gateway}/readyz`).catch(() => undefined);
      return response?.status === 200;
    },
    60_000,
  );
  // The gateway's readiness does not include the dev chain, which loads EDR and deploys its contracts
  // in its own process: on a loaded machine it answers a few seconds after the gateway.
  await eventually(
    'the dev chain to answer with its contracts deployed',
    async () => {
      const code = (await rpc('eth_getCode', [DEV_TOKEN.address, 'latest']).catch(() => '0x')) as string;
      return code.length > 2;
    },
    60_000,
  );
});

afterAll(async () => {
  if (stack.child.exitCode === null) stack.child.kill('SIGKILL');
  await dropDatabase(database);
  await deleteKeys(TEST_REDIS_URL, `${queuePrefix}:*`);
});

/** One JSON-RPC call to the dev chain. */
async function rpc(method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(`http://127.0.0.1:${ports.chain}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/**
 * The README's quick start: the block of its "Quick start" section that starts with GATEWAY=, run by
 * bash as it is written (stopping at the first failing step), in the repository's folder as a reader
 * would, with GATEWAY, CHAIN and PLATFORM_API_KEY set as the block reads them.
 */
async function runQuickStart(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Quick start\n'), readme.indexOf('\n## ', readme.indexOf('\n## Quick start\n') + 1));
  const block = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!).find((text) => text.startsWith('GATEWAY='));
  if (!block) throw new Error('no quick-start block starting with GATEWAY= in the README');
  const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', block], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      GATEWAY: `127.0.0.1:${ports.gateway}`,
      CHAIN: `http://127.0.0.1:${ports.chain}`,
      PLATFORM_API_KEY: platformKey,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 150_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', (exit) => resolve(exit)));
  if (code !== 0) process.stderr.write(`quick start (exit ${code}):\n${stdout}\n${stderr}\n`);
  return { code, stdout, stderr };
}

describe('npm start', () => {
  it('reads .env under the environment, and derives the sign-in domain from PORT', async () => {
    expect(stack.output()).toContain(`stack: took 9 variables from ${envFile}; already set, so not taken: PORT\n`);
    const response = await fetch(`http://127.0.0.1:${ports.gateway}/api/v1/auth/nonce`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ address: '0x00000000000000000000000000000000000000a1' }),
    });
    expect(response.status).toBe(200);
    const { message } = (await response.json()) as { message: string };
    expect(message).toMatch(new RegExp(`^localhost:${ports.gateway} wants you to sign in`));
    expect(message).toContain(`\nURI: http://localhost:${ports.gateway}\n`);
  });

  it('serves the gateway’s metrics on METRICS_PORT, and not on PORT', async () => {
    const metrics = await fetch(`http://127.0.0.1:${ports.metrics}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('http_requests_total');
    expect((await fetch(`http://127.0.0.1:${ports.gateway}/metrics`)).status).toBe(404);
  });

  it('a member started on a port that is taken says which variable to change, in one line, with the configuration exit code', async () => {
    const memberEnv = { ...env, DATABASE_URL: databaseUrl(database), LOG_LEVEL: 'warn' };
    const gateway = startTs(path.join(ROOT, 'gateway/main.ts'), { env: memberEnv });
    const audience = startTs(path.join(ROOT, 'services/audience/main.ts'), {
      env: { ...memberEnv, GRPC_HOST: '127.0.0.1', GRPC_PORT: String(ports.audience) },
    });
    expect(await endOf(gateway, 30_000)).toEqual({ code: 78, signal: null });
    expect(gateway.output()).toContain(
      `gateway: failed to start: 127.0.0.1:${ports.gateway} is already in use by another process: set PORT to a free port, or stop that process\n`,
    );
    expect(await endOf(audience, 30_000)).toEqual({ code: 78, signal: null });
    expect(audience.output()).toContain(
      `audience: failed to start: 127.0.0.1:${ports.audience} is already in use by another process: set GRPC_PORT to a free port, or stop that process\n`,
    );
    for (const output of [gateway.output(), audience.output()]) expect(output).not.toMatch(/^\s+at /m);
  });

  it('runs the dev chain when no chain is configured, and says where it answers and what it holds', async () => {
    const banner = stack
      .output()
      .split('\n')
      .find((line) => line.startsWith('stack: started '));
    expect(banner).toMatch(/^stack: started dev-chain \(pid \d+\), audience/);
    expect(banner).toContain(`the dev chain 31337 runs at http://127.0.0.1:${ports.chain}`);
    expect(banner).toContain(
      `ClaimManager ${DEV_CLAIM_MANAGER}, DUSD ${DEV_TOKEN.address}, development account 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266`,
    );
    const chainId = await rpc('eth_chainId');
    expect(chainId).toBe('0x7a69');
    // Deployed where the README and constants.ts say, on every start.
    expect(((await rpc('eth_getCode', [DEV_CLAIM_MANAGER, 'latest'])) as string).length).toBeGreaterThan(1_000);
    expect(((await rpc('eth_getCode', [DEV_TOKEN.address, 'latest'])) as string).length).toBeGreaterThan(1_000);
  });

  it("runs the README's quick start as written, from the audience to a voucher redeemed on the dev chain and its check claimed", async () => {
    const run = await runQuickStart();
    expect(run.code).toBe(0);
    const output = run.stdout;
    expect(output).toMatch(/^PROJECT=[0-9a-f-]{36} ADMIN_KEY=\S{20,} /m);
    expect(output).toContain('0x00000000000000000000000000000000000000a1 end_user_payout 2500000 DUSD open');
    expect(output).toContain('0x70997970C51812dc3A010C7d01b50e0d17dc79C8 affiliate_payout 25000000 DUSD open');
    expect(output).toMatch(/^approve: transaction 0x[0-9a-f]{64} success$/m);
    expect(output).toMatch(/^deposit: transaction 0x[0-9a-f]{64} success$/m);
    expect(output).toMatch(/^claim: transaction 0x[0-9a-f]{64} success$/m);
    expect(output).toContain('0x00000000000000000000000000000000000000a1 now holds 2500000 DUSD base units');
    const checkId = /^check ([0-9a-f-]{36}) claimed$/m.exec(output)?.[1];
    expect(checkId).toBeDefined();
    // What the claim service stored, and what the chain says.
    const admin = new pg.Client({ connectionString: databaseUrl(database) });
    await admin.connect();
    try {
      const { rows } = await admin.query(
        'SELECT c.status, v.claim_tx_hash FROM claim.claim_checks c JOIN claim.vouchers v ON v.claim_check_id = c.id WHERE c.id = $1',
        [checkId],
      );
      const claimTx = /^claim: transaction (0x[0-9a-f]{64}) success$/m.exec(output)![1];
      expect(rows).toEqual([{ status: 'claimed', claim_tx_hash: claimTx }]);
    } finally {
      await admin.end();
    }
  }, 180_000);

  it('starts a new dev chain when it restarts, and the claim service says it reads the new chain from its start', async () => {
    const pid = Number(/started dev-chain \(pid (\d+)\)/.exec(stack.output())?.[1]);
    const genesis = async () => ((await rpc('eth_getBlockByNumber', ['0x0', false])) as { hash: string }).hash;
    const before = await genesis();
    process.kill(pid, 'SIGKILL');
    await eventually('the supervisor to restart the dev chain', () => /restarted dev-chain \(pid \d+\)/.test(stack.output()), 30_000);
    const after = await eventually('the new dev chain to answer', () => genesis().catch(() => undefined), 30_000);
    expect(after).not.toBe(before);
    const line = await eventually(
      'the claim service to notice the new genesis',
      () =>
        stack
          .output()
          .split('\n')
          .find((text) => text.includes('the chain has a new genesis block')),
      30_000,
    );
    expect(line).toContain(`"previous_genesis_hash":"${before}"`);
    expect(line).toContain(`"genesis_hash":"${after}"`);
  }, 90_000);

  it('stops every member on SIGTERM, the gateway first, exits 0 and frees its ports', async () => {
    stack.child.kill('SIGTERM');
    // Settles only once the members, which share the supervisor's output, are gone too.
    expect(await endOf(stack, 30_000)).toEqual({ code: 0, signal: null });
    const lines = stack
      .output()
      .split('\n')
      .filter((line) => line.startsWith('stack: '));
    const services = CATALOG.map((service) => service.name);
    const stoppedService = new RegExp(`^stack: (${services.join('|')}) stopped \\(exit code 0\\)$`);
    // The dev chain last: the claim service reads it for as long as it runs.
    expect(lines.slice(-(4 + services.length))).toEqual([
      `stack: SIGTERM received: stopping gateway, then ${services.join(' and ')}, then dev-chain`,
      'stack: gateway stopped (exit code 0)',
      ...services.map(() => expect.stringMatching(stoppedService)),
      'stack: dev-chain stopped (exit code 0)',
      'stack: stopped',
    ]);
    for (const port of Object.values(ports)) expect(await portIsFree(port)).toBe(true);
  });
});
