import type { Migration } from 'kysely';
import * as accessTables from './0001_access_tables';
import * as sendTrackingEventRole from './0002_send_tracking_event_role';

/** Ordered by name; append, never edit a migration that has shipped. */
export const accessMigrations: Record<string, Migration> = {
  '0001_access_tables': accessTables,
  '0002_send_tracking_event_role': sendTrackingEventRole,
};
