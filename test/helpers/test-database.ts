import { randomBytes } from 'node:crypto';
import IORedis from 'ioredis';
import pg from 'pg';
import { databaseUrl, runId, TEST_DB_PREFIX, templateDatabase } from '../setup/test-env';

/**
 * What a test takes of the run's PostgreSQL and Redis, and gives back: a database cloned from the
 * migrated template, a Redis key prefix. Apart from the stack's helpers (stack.ts), which load the
 * gateway and every service: the medium tier needs these alone.
 */

/** A Redis key prefix of this run that no other stack uses (global teardown removes what is left). */
export function newQueuePrefix(): string {
  return `test:${runId()}:${randomBytes(4).toString('hex')}`;
}

/**
 * A database of its own for one stack, cloned from the run's migrated template.
 *
 * `drop()` starts dropping it and resolves at once: PostgreSQL makes every DROP DATABASE wait for
 * an immediate checkpoint of the whole server, 5 to 11 s on a loaded machine, which the test
 * file would otherwise wait for in its afterAll. Nothing waits for the database to be gone (no
 * name is reused), and global teardown drops whatever a file left (test/setup/global-teardown.ts).
 */
export async function createTestDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `${TEST_DB_PREFIX}${runId()}_${randomBytes(4).toString('hex')}`;
  await cloneTemplate(name);
  return {
    name,
    url: databaseUrl(name),
    drop: async () => {
      // A failure here (e.g. the run ending under it) leaves the database to global teardown.
      dropDatabase(name).catch(() => undefined);
    },
  };
}

/**
 * An empty database (no schema, no migration), for a test of a migration that starts from the
 * migrations before it; dropped like a clone of the template.
 */
export async function createEmptyDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `${TEST_DB_PREFIX}${runId()}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: databaseUrl(name),
    drop: async () => {
      dropDatabase(name).catch(() => undefined);
    },
  };
}

async function cloneTemplate(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
  await admin.connect();
  try {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)} TEMPLATE ${pg.escapeIdentifier(templateDatabase())}`);
        // A commit need not wait for its WAL to reach the disk: what that guards (the last commits
        // surviving an operating-system crash) is nothing a test looks at, and with fsync at a few
        // ms a commit, a test of thousands of small transactions (a worker paying conversions one
        // by one) spent most of its time waiting on the disk. Every session of this database,
        // in the test process and in service processes alike, gets it.
        await admin.query(`ALTER DATABASE ${pg.escapeIdentifier(name)} SET synchronous_commit = off`);
        return;
      } catch (error) {
        // Two files cloning at the same instant: the template is briefly "in use".
        if ((error as { code?: string }).code !== '55006' || attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 * (attempt + 1)));
      }
    }
  } finally {
    await admin.end();
  }
}

export async function deleteKeys(redisUrl: string, pattern: string): Promise<void> {
  const redis = new IORedis(redisUrl);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
}

/** Drops a database of the run (its connections cut off). */
export async function dropDatabase(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  await admin.end();
}
