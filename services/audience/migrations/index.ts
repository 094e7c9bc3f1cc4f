import type { Migration } from 'kysely';
import * as audienceTables from './0001_audience_tables';

/** Ordered by name; append, never edit a migration that has shipped. */
export const audienceMigrations: Record<string, Migration> = {
  '0001_audience_tables': audienceTables,
};
