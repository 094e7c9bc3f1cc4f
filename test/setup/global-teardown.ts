import IORedis from 'ioredis';
import pg from 'pg';
import { stopChromiumServer } from '../e2e/chromium-server';
import { stopWebBuild } from '../e2e/web-build';
import { stopContainers } from './containers';
import { stopWorkerStack } from './stack-environment';
import { databaseUrl, TEST_DB_PREFIX, TEST_REDIS_URL } from './test-env';

/** Removes every database and Redis key this run created, even those of a file that crashed. */
export default async function globalTeardown(): Promise<void> {
  await stopWorkerStack();
  const run = process.env.REFERRAL_TEST_RUN;
  if (run) {
    const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
    await admin.connect();
    const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${TEST_DB_PREFIX}${run}%`]);
    for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(datname)} WITH (FORCE)`);
    await admin.end();

    const redis = new IORedis(TEST_REDIS_URL);
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `test:${run}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    await redis.quit();
  }
  await stopWebBuild();
  await stopChromiumServer();
  await stopContainers();
}
