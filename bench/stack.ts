/**
 * The real stack, started as `npm start` runs it (dist/scripts/start-stack.js: one process per
 * service plus the gateway), on its own database, queue prefix and free ports.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openSync, closeSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import IORedis from 'ioredis';
import pg from 'pg';
import { CATALOG } from '../services/platform/service-catalog';

export interface StackOptions {
  databaseName: string;
  postgresUrl: string;
  redisUrl: string;
  logFile: string;
  /** Extra variables for every process of the stack. */
  extraEnv?: Record<string, string>;
  /** Node flags of the supervisor, which fork() passes on to every service (e.g. --cpu-prof). */
  nodeArgs?: string[];
}

export interface RunningStack {
  baseUrl: string;
  databaseUrl: string;
  queuePrefix: string;
  platformKey: string;
  /** The supervisor (start-stack.js); its children are the services and the gateway. */
  pid: number;
  grpcAddresses: Record<string, string>;
  stop(): Promise<void>;
}

const dist = path.resolve(__dirname, '..');

/** A port the kernel says is free right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function databaseUrlFor(postgresUrl: string, name: string): string {
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function recreateDatabase(postgresUrl: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: databaseUrlFor(postgresUrl, 'postgres') });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } finally {
    await admin.end();
  }
}

export async function dropDatabase(postgresUrl: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: databaseUrlFor(postgresUrl, 'postgres') });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

export async function deleteRedisKeys(redisUrl: string, prefix: string): Promise<number> {
  const redis = new IORedis(redisUrl, { maxRetriesPerRequest: 3 });
  let cursor = '0';
  let deleted = 0;
  try {
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) deleted += await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
  return deleted;
}

async function waitForReady(baseUrl: string, child: ChildProcess, timeoutMs: number, logFile: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the stack exited during start-up (${child.exitCode ?? child.signalCode}); see ${logFile}`);
    }
    try {
      const response = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return;
      last = `${response.status} ${await response.text()}`;
    } catch (error) {
      last = String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the stack was not ready after ${timeoutMs} ms (last /readyz: ${last}); see ${logFile}`);
}

export async function startStack(options: StackOptions): Promise<RunningStack> {
  const databaseUrl = databaseUrlFor(options.postgresUrl, options.databaseName);
  const queuePrefix = `bench-${randomBytes(4).toString('hex')}`;
  const platformKey = randomBytes(32).toString('hex');
  const port = await freePort();
  const grpcAddresses: Record<string, string> = {};
  for (const { addressVariable } of CATALOG) grpcAddresses[addressVariable] = `127.0.0.1:${await freePort()}`;

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    REDIS_URL: options.redisUrl,
    QUEUE_PREFIX: queuePrefix,
    PLATFORM_API_KEY: platformKey,
    HOST: '127.0.0.1',
    PORT: String(port),
    // The gateway's metrics port too: the defaults may be held by another stack on the machine.
    METRICS_PORT: String(await freePort()),
    ...grpcAddresses,
    // High enough never to throttle, but not 0, so the limiter's code still runs on every request.
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    ...options.extraEnv,
  };
  const log = openSync(options.logFile, 'a');
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), path.join(dist, 'scripts/start-stack.js')], {
    env,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 60_000).unref());
    if ((await Promise.race([exited.then(() => 'exited' as const), timeout])) === 'timeout') {
      process.stderr.write(`bench: the stack did not stop within 60 s of SIGTERM; killing pid ${child.pid}\n`);
      child.kill('SIGKILL');
      await exited;
    }
  };

  try {
    await waitForReady(baseUrl, child, 60_000, options.logFile);
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, databaseUrl, queuePrefix, platformKey, pid: child.pid!, grpcAddresses, stop };
}
