import { type Database, openDatabase } from '../../services/platform/db/database';
import { createLogger } from '../../services/platform/logger';
import { databaseUrl } from '../setup/test-env';

/**
 * A pool of one connection to the maintenance database, opened as every service opens its own
 * (openDatabase: type parsers, prepared statements), for tests of that shared layer that touch no
 * schema of ours. One connection: what one query leaves in the session (a setting, a prepared
 * statement), the next finds.
 */
export function openMaintenanceDatabase(applicationName: string): Database<unknown> {
  return openDatabase({
    url: databaseUrl('postgres'),
    schema: 'public',
    poolMax: 1,
    applicationName,
    logger: createLogger({ service: 'test', level: 'silent' }),
  });
}
