import type { Migration } from 'kysely';
import * as accessTables from './0001_access_tables';

/** Ordered by name; append, never edit a migration that has shipped. */
export const accessMigrations: Record<string, Migration> = {
  '0001_access_tables': accessTables,
};
