/**
 * The affiliate list's SQL alone, case by case: seeds the bench's 100,000 affiliates,
 * then times every dashboard case's statements (the page and its total, as the repository sends them,
 * see affiliateListSql) one at a time on one connection, and prints the slowest with the plan of the
 * slowest. No load: what each statement costs PostgreSQL, so a slow case is found without the noise
 * of a loaded run. `npm run build && node dist/bench/affiliate-list-sql.js`; BENCH_SCALE as for the
 * bench; AFFILIATE_LIST_KEEP_DB=1 keeps the database (its name and the project are printed) for psql.
 */
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Api } from './api';
import { type AffiliateListCase, crossCheckAffiliateList, dashboardCases, openDirectAffiliateList, setUpAffiliateList } from './affiliate-list';
import { loadBenchConfig } from './config';
import { percentile } from './data';
import { fmt, table } from './report';
import { dropDatabase, recreateDatabase, startStack } from './stack';

const TIMINGS_PER_CASE = 5;

async function main(): Promise<void> {
  const config = loadBenchConfig();
  const postgresUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const databaseName = process.env.BENCH_DATABASE ?? 'referral_bench_list_sql';
  const keep = process.env.AFFILIATE_LIST_KEEP_DB === '1';
  await recreateDatabase(postgresUrl, databaseName);
  const stack = await startStack({
    databaseName,
    postgresUrl,
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    logFile: path.join(os.tmpdir(), `${databaseName}-stack.log`),
  });
  const admin = new pg.Client({ connectionString: stack.databaseUrl, application_name: 'bench-setup' });
  await admin.connect();
  try {
    const { pageSize } = config.affiliateList;
    const data = await setUpAffiliateList(new Api(stack.baseUrl), stack.platformKey, admin, config);
    const direct = openDirectAffiliateList(stack.databaseUrl, data, 1, pageSize);
    try {
      const cases = await dashboardCases(data, direct, pageSize);
      process.stdout.write(`${await crossCheckAffiliateList(new Api(stack.baseUrl), data, direct, cases)} (gateway and SQL)\n`);
      const timed: Array<{ one: AffiliateListCase; p50: number; max: number }> = [];
      for (const one of cases) {
        const samples: number[] = [];
        for (let n = 0; n < TIMINGS_PER_CASE; n++) {
          const sent = performance.now();
          await direct.page(one);
          samples.push(performance.now() - sent);
        }
        samples.sort((a, b) => a - b);
        timed.push({ one, p50: percentile(samples, 50), max: samples[samples.length - 1]! });
      }
      timed.sort((a, b) => b.p50 - a.p50);
      const all = timed.map((row) => row.p50).sort((a, b) => a - b);
      process.stdout.write(
        `${cases.length} cases, ${TIMINGS_PER_CASE} timings each on one connection (page and total as the repository sends them); ` +
          `median of the cases' medians ${fmt.ms(percentile(all, 50))}, slowest ${fmt.ms(all[all.length - 1]!)}, cases over 10 ms: ${all.filter((ms) => ms > 10).length}\n`,
      );
      process.stdout.write(
        `${table(
          ['case', 'p50', 'max'],
          timed.slice(0, 25).map((row) => [row.one.label, fmt.ms(row.p50), fmt.ms(row.max)]),
        )}\n`,
      );
      for (const row of timed.slice(0, 3)) process.stdout.write(`\n${await direct.explain(row.one)}\n`);
      if (keep) process.stdout.write(`\nkept: database ${databaseName}, project ${data.project.id}, segment ${data.segmentId}\n`);
    } finally {
      await direct.close();
    }
  } finally {
    await admin.end();
    await stack.stop();
    if (!keep) await dropDatabase(postgresUrl, databaseName);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
