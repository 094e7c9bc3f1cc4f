import pg from 'pg';
import { TestClock } from './clock';
import { Api } from './http';
import type { LogCapture } from './log-capture';
import type { GrpcAddresses, TestStack } from './stack';

/** What test/setup/stack-environment.js hands a file of the worker's stack. */
interface WorkerStackHandle {
  baseUrl: string;
  metricsUrl: string;
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  grpcAddresses: GrpcAddresses;
  clock: TestClock;
  logs: LogCapture;
}

declare global {
  var __referralWorkerStack: (() => Promise<WorkerStackHandle>) | undefined;
}

/** Where a borrowed stack's clock stands when a file borrows it: a new TestClock's start, as in a stack of the file's own. */
const CLOCK_START = new TestClock().now();

/**
 * The worker's stack (test/setup/stack-environment.js), borrowed by this file: its clock set back to a new
 * clock's start and its log lines emptied, as a stack of the file's own would begin; a pool of the file's own on
 * its database. A file shares it with the files before it in the worker (one at a time), so it works in a project
 * of its own (createProject) and reads the database by that project's ids. `stop()` gives it back: it ends the
 * file's pool, the stack runs on. Undefined outside the integration tests' environment (e.g. a unit test).
 */
export async function borrowWorkerStack(): Promise<TestStack | undefined> {
  const handle = await globalThis.__referralWorkerStack?.();
  if (!handle) return undefined;
  handle.clock.set(CLOCK_START);
  handle.logs.lines.length = 0;
  const db = new pg.Pool({ connectionString: handle.databaseUrl, max: 2 });
  db.on('error', () => undefined);
  return {
    api: new Api(handle.baseUrl),
    baseUrl: handle.baseUrl,
    metricsUrl: handle.metricsUrl,
    clock: handle.clock,
    logs: handle.logs,
    db,
    databaseUrl: handle.databaseUrl,
    redisUrl: handle.redisUrl,
    queuePrefix: handle.queuePrefix,
    grpcAddresses: handle.grpcAddresses,
    stop: () => db.end(),
  };
}
