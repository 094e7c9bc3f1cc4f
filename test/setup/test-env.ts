/** Where the tests find PostgreSQL and Redis: the local services on their standard ports by default. */
export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Every database and Redis key a run creates starts with this, so teardown finds them all. */
export const TEST_DB_PREFIX = 'referral_test_';

export function databaseUrl(name: string): string {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export function runId(): string {
  const id = process.env.REFERRAL_TEST_RUN;
  if (!id) throw new Error('REFERRAL_TEST_RUN is not set: run the tests through jest (global setup sets it)');
  return id;
}

export function templateDatabase(): string {
  return `${TEST_DB_PREFIX}${runId()}_template`;
}
