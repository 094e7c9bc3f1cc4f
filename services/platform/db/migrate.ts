import { type Kysely, type Migration, Migrator, sql } from 'kysely';
import type { Logger } from '../logger';

/**
 * Applies a service's ordered migrations to its own schema. Several replicas may start at once:
 * a session advisory lock per schema makes them take turns, and the later ones find nothing to do.
 */
export async function migrateToLatest(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema: each service passes its own
  db: Kysely<any>,
  schema: string,
  migrations: Record<string, Migration>,
  logger: Logger,
): Promise<void> {
  await db.connection().execute(async (connection) => {
    await sql`SELECT pg_advisory_lock(hashtext(${`migrate:${schema}`}))`.execute(connection);
    try {
      await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(schema)}`.execute(connection);
      const migrator = new Migrator({
        db: connection,
        migrationTableSchema: schema,
        provider: { getMigrations: async () => migrations },
      });
      const { error, results } = await migrator.migrateToLatest();
      for (const result of results ?? []) {
        if (result.status === 'Success') logger.info({ schema, migration: result.migrationName }, 'migration applied');
        if (result.status === 'Error') logger.error({ schema, migration: result.migrationName }, 'migration failed');
      }
      if (error) throw error;
    } finally {
      await sql`SELECT pg_advisory_unlock(hashtext(${`migrate:${schema}`}))`.execute(connection);
    }
  });
}
