/**
 * A Kysely database that runs nothing: it compiles what the code sends, as PostgreSQL would receive it,
 * records it, and answers each statement with the rows `answer` gives (none by default). The SQL
 * snapshots call the real repository code through it, so a snapshot is the statement the code builds.
 */
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from 'kysely';

export interface RecordedStatement {
  sql: string;
  parameters: readonly unknown[];
}

export function recordingDatabase<DB>(answer: (sql: string) => unknown[] = () => []): { db: Kysely<DB>; statements: RecordedStatement[] } {
  const statements: RecordedStatement[] = [];
  const connection: DatabaseConnection = {
    executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      statements.push({ sql: query.sql, parameters: query.parameters });
      return Promise.resolve({ rows: answer(query.sql) as R[] });
    },
    streamQuery() {
      throw new Error('the recording database streams nothing');
    },
  };
  const driver: Driver = {
    init: () => Promise.resolve(),
    acquireConnection: () => Promise.resolve(connection),
    beginTransaction: () => Promise.resolve(),
    commitTransaction: () => Promise.resolve(),
    rollbackTransaction: () => Promise.resolve(),
    releaseConnection: () => Promise.resolve(),
    destroy: () => Promise.resolve(),
  };
  const db = new Kysely<DB>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (database) => new PostgresIntrospector(database),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  return { db, statements };
}
