import { type Kysely, type Migration, Migrator, sql } from 'kysely';
import { openDatabase } from '../../services/platform/db/database';
import { migrateToLatest } from '../../services/platform/db/migrate';
import type { LogCapture } from './log-capture';
import { createEmptyDatabase } from './test-database';

export interface DatabaseBeforeMigration<DB> {
  db: Kysely<DB>;
  /** Applies the migration under test and every one after it, as the service's start does. */
  migrateRest(): Promise<void>;
  /** Closes the connections and drops the database. */
  close(): Promise<void>;
}

/**
 * A service's schema on an empty database of its own, migrated up to the migration under test (the first,
 * in name order, that `isUnderTest` picks) and no further: the test writes the rows the code before it
 * wrote, applies the rest (`migrateRest`) and reads what the migration made of them.
 */
export async function databaseBeforeMigration<DB>(
  schema: string,
  migrations: Record<string, Migration>,
  isUnderTest: (name: string) => boolean,
  logs: LogCapture,
): Promise<DatabaseBeforeMigration<DB>> {
  const empty = await createEmptyDatabase();
  const database = openDatabase<DB>({ url: empty.url, schema, poolMax: 2, applicationName: 'test', logger: logs.logger('db') });
  const close = async () => {
    await database.close();
    await empty.drop();
  };
  try {
    await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(database.db);
    const names = Object.keys(migrations).sort();
    const underTest = names.findIndex(isUnderTest);
    if (underTest < 0) throw new Error('no migration is the one under test');
    const before = Object.fromEntries(names.slice(0, underTest).map((name) => [name, migrations[name]!]));
    const { error } = await new Migrator({
      db: database.db,
      migrationTableSchema: schema,
      provider: { getMigrations: async () => before },
    }).migrateToLatest();
    if (error) throw error;
  } catch (error) {
    await close();
    throw error;
  }
  return {
    db: database.db,
    migrateRest: () => migrateToLatest(database.db, schema, migrations, logs.logger('migrate')),
    close,
  };
}
