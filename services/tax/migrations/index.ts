import type { Migration } from 'kysely';
import * as taxTables from './0001_tax_tables';

/** Ordered by name; append, never edit a migration that has shipped. */
export const taxMigrations: Record<string, Migration> = {
  '0001_tax_tables': taxTables,
};
