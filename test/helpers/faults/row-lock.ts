import pg from 'pg';

export interface RowLock {
  /** The backend holding the lock. */
  pid: number;
  /**
   * How many backends wait for this lock, directly or behind another waiter (e.g. a worker blocked
   * on the locked row). The backend of a process killed while waiting keeps waiting until the lock
   * goes, so each crash adds one.
   */
  waiters(): Promise<number>;
  /** Ends the transaction (ROLLBACK) and the connection: the lock is gone. */
  release(): Promise<void>;
}

/**
 * Holds row locks in an open transaction on a connection of its own, as other work would: e.g.
 * `SELECT 1 FROM audience.segments WHERE id = $1 FOR NO KEY UPDATE` blocks a batch's apply (which
 * updates the segment's count) but not its submission; `FOR UPDATE` blocks the submission too.
 * The lock outlives crashes of the processes that wait for it, until release().
 */
export async function holdRowLock(databaseUrl: string, lockingQuery: string, params: unknown[] = []): Promise<RowLock> {
  const holder = new pg.Client({ connectionString: databaseUrl, application_name: 'test-row-lock' });
  await holder.connect();
  await holder.query('BEGIN');
  const locked = await holder.query(lockingQuery, params);
  if (locked.rowCount === 0) {
    await holder.end();
    throw new Error(`the locking query matched no row: ${lockingQuery}`);
  }
  const pid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  const observer = new pg.Client({ connectionString: databaseUrl, application_name: 'test-row-lock-observer' });
  await observer.connect();
  let released = false;
  return {
    pid,
    waiters: async () => {
      // Transitively: a backend queued behind another waiter (e.g. for the batch row that one holds) counts too.
      const { rows } = await observer.query<{ n: number }>(
        `WITH RECURSIVE waiting(pid) AS (
           SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))
           UNION
           SELECT activity.pid FROM pg_stat_activity activity JOIN waiting ON waiting.pid = ANY(pg_blocking_pids(activity.pid))
         )
         SELECT count(*)::int AS n FROM waiting`,
        [pid],
      );
      return rows[0]!.n;
    },
    release: async () => {
      if (released) return;
      released = true;
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end().catch(() => undefined);
      await observer.end().catch(() => undefined);
    },
  };
}
