import pg from 'pg';
import { pollUntil } from './poll';
import type { TestStack } from './stack';

/** The gateway's shared reads seen from outside: how many requests began a read, and reads counted where they wait (behind a table lock). */
export function sharedReadProbe(stack: TestStack) {
  /** gateway_shared_reads_total of one read, by outcome. */
  async function sharedReads(read: string): Promise<{ computed: number; shared: number }> {
    const text = await (await fetch(stack.metricsUrl)).text();
    const count = (outcome: string) =>
      Number(new RegExp(`gateway_shared_reads_total\\{read="${read}",outcome="${outcome}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
    return { computed: count('computed'), shared: count('shared') };
  }

  /** Holds an ACCESS EXCLUSIVE lock on `table` (every read of it waits) and counts the statements waiting for it. */
  async function lockTable(table: string) {
    const holder = new pg.Client({ connectionString: stack.databaseUrl, application_name: 'test-table-lock' });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    const pid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    return {
      waiting: async () =>
        (await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid])).rows[0]!
          .n,
      release: async () => {
        await holder.query('ROLLBACK');
        await holder.end();
      },
    };
  }

  /**
   * `requests` sent at once while `table` is locked: waits until all have reached the gateway and
   * `waitingReads` reads of `read` wait on the lock (one per distinct request), then releases it.
   * Answers their answers and the counts of `read` from before they were sent.
   */
  async function behindLock<T>(table: string, read: string, requests: Array<() => Promise<T>>, waitingReads: number) {
    const lock = await lockTable(table);
    const start = await sharedReads(read);
    let answers: Promise<T[]>;
    try {
      answers = Promise.all(requests.map((request) => request()));
      await pollUntil(
        async () => {
          const now = await sharedReads(read);
          return now.computed + now.shared - start.computed - start.shared === requests.length;
        },
        { timeoutMs: 10_000, what: `the ${requests.length} requests to reach the gateway` },
      );
      // The requests are counted when they reach the gateway; the reads they share reach the lock a moment later.
      await pollUntil(async () => (await lock.waiting()) >= waitingReads, { timeoutMs: 10_000, what: `${waitingReads} reads to wait on the lock` });
      expect(await lock.waiting()).toBe(waitingReads);
    } finally {
      await lock.release();
    }
    return { answers: await answers, start };
  }

  /** 50 identical requests behind a lock of `table` (behindLock): one read of them waits on it. */
  const fiftyBehindLock = <T>(table: string, read: string, request: () => Promise<T>) =>
    behindLock(
      table,
      read,
      Array.from({ length: 50 }, () => request),
      1,
    );

  return { sharedReads, behindLock, fiftyBehindLock };
}

/**
 * Sets an affiliate's volume in the agency's metrics projection directly, so a test sees whether a
 * read is current without sending conversions (how conversions feed it: affiliate-metrics.test.ts).
 */
export async function setAffiliateVolume(stack: TestStack, projectId: string, identifier: string, volume: string): Promise<void> {
  const { rowCount } = await stack.db.query(
    `UPDATE agency.affiliate_metrics m SET volume_usd = $3 FROM agency.affiliates a
     WHERE a.id = m.affiliate_id AND a.project_id = $1 AND a.identifier = $2`,
    [projectId, identifier, volume],
  );
  if (rowCount !== 1) throw new Error(`no metrics row of affiliate ${identifier} in project ${projectId}`);
}
