import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import IORedis from 'ioredis';
import pg from 'pg';
import { CATALOG } from '../../services/common/service-catalog';
import { databaseUrl, runId, TEST_DB_PREFIX, TEST_REDIS_URL } from '../setup/test-env';
import { endOf, eventually, freePort, type NodeProcess, portIsFree, startTs } from '../helpers/processes';

/**
 * `npm start` end to end: scripts/start-stack.ts with the real services and gateway, run from
 * source through the TypeScript loader (a build would take longer than the whole test), reading
 * a .env file, on ports and a database of its own. The same as `npm start` after its build,
 * except that npm's part (it forwards SIGINT/SIGTERM to the supervisor, which `exec` makes its
 * direct child) is checked by hand, as the README says.
 */
const ROOT = path.resolve(__dirname, '../..');
const database = `${TEST_DB_PREFIX}${runId()}_npm_start`;
const queuePrefix = `test:${runId()}:npm-start`;

let stack: NodeProcess;
let env: NodeJS.ProcessEnv;
let ports: { gateway: number; metrics: number } & Record<(typeof CATALOG)[number]['name'], number>;
let envFile: string;

beforeAll(async () => {
  // Every member on a port of its own, none on its default: another stack (a developer's, a bench)
  // may hold the defaults on the same machine.
  ports = { gateway: await freePort(), metrics: await freePort() } as typeof ports;
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
      'PLATFORM_API_KEY=',
      'SIWE_DOMAIN=',
      'SIWE_URI=',
      'SESSION_SECRET=',
      'TAX_ENCRYPTION_KEYS=',
      'TAX_ENCRYPTION_ACTIVE_KEY_ID=',
      'GRPC_PORT=50051',
      'LOG_LEVEL=warn',
      '',
    ].join('\n'),
  );
  env = { ...process.env };
  for (const name of Object.keys(env)) if (/^(DATABASE_URL|GRPC_|SIWE_|PLATFORM_API_KEY|NODE_ENV)/.test(name)) delete env[name];
  Object.assign(env, {
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: queuePrefix,
    HOST: '127.0.0.1',
    PORT: String(ports.gateway),
    METRICS_PORT: String(ports.metrics),
    ...Object.fromEntries(CATALOG.map((service) => [service.addressVariable, `127.0.0.1:${ports[service.name]}`])),
    SHUTDOWN_GRACE_MS: '5000',
    DB_POOL_MAX: '3',
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
});

afterAll(async () => {
  if (stack.child.exitCode === null) stack.child.kill('SIGKILL');
  const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(database)} WITH (FORCE)`);
  await admin.end();
  const redis = new IORedis(TEST_REDIS_URL);
  const keys = await redis.keys(`${queuePrefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

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

  it('stops every member on SIGTERM, the gateway first, exits 0 and frees its ports', async () => {
    stack.child.kill('SIGTERM');
    // Settles only once the members, which share the supervisor's output, are gone too.
    expect(await endOf(stack, 30_000)).toEqual({ code: 0, signal: null });
    const lines = stack.output().split('\n').filter((line) => line.startsWith('stack: '));
    const services = CATALOG.map((service) => service.name);
    const stoppedService = new RegExp(`^stack: (${services.join('|')}) stopped \\(exit code 0\\)$`);
    expect(lines.slice(-(3 + services.length))).toEqual([
      `stack: SIGTERM received: stopping gateway, then ${services.join(' and ')}`,
      'stack: gateway stopped (exit code 0)',
      ...services.map(() => expect.stringMatching(stoppedService)),
      'stack: stopped',
    ]);
    for (const port of Object.values(ports)) expect(await portIsFree(port)).toBe(true);
  });
});
