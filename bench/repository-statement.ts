import type { Kysely } from 'kysely';
import { type RecordedStatement, recordingDatabase } from '../scripts/sql-snapshots/recording-database';

export type { RecordedStatement };

/**
 * The one statement `read` sends, built by the repository's own code on a recording database (the SQL
 * snapshots' tool): the text and parameters PostgreSQL receives from the service, so a direct query
 * the benchmark sends with pg is the repository's statement, never a copy that can drift from it.
 */
export async function repositoryStatement<DB>(read: (db: Kysely<DB>) => Promise<unknown>): Promise<RecordedStatement> {
  const { db, statements } = recordingDatabase<DB>();
  await read(db);
  if (statements.length !== 1) throw new Error(`expected the read to send one statement; it sent ${statements.length}`);
  return statements[0]!;
}
