import type { Kysely } from 'kysely';

/**
 * Runs `work` in one REPEATABLE READ, READ ONLY transaction: every query it sends sees the same
 * snapshot, so an answer made of several reads (a total and the daily series it sums) never joins
 * the state before a commit to the state after it. The reads share the transaction's one connection,
 * which runs them in turn.
 */
export function inReadSnapshot<DB, T>(db: Kysely<DB>, work: (snapshot: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(work);
}
