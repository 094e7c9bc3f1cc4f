import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { accessMigrations } from '../../gateway/access/migrations';
import { ACCESS_SCHEMA } from '../../gateway/server';
import { loadConfig } from '../../services/platform/config';
import { openDatabase } from '../../services/platform/db/database';
import { migrateToLatest } from '../../services/platform/db/migrate';
import { createLogger } from '../../services/platform/logger';
import { SERVICE_MANIFESTS } from '../../services/manifests';
import { startChromiumServer } from '../e2e/chromium-server';
import { startWebBuildInBackground } from '../e2e/web-build';
import { startContainersIfAsked } from './containers';
import { databaseUrl, TEST_DB_PREFIX } from './test-env';

/**
 * Once per run: a template database with every service's migrations applied. Each test file
 * clones it (CREATE DATABASE ... TEMPLATE), which takes a fraction of a second, and gets a
 * database of its own.
 */
export default async function globalSetup(): Promise<void> {
  // The run holds browser tests (test/setup/sequencer.js says so): their bundle builds beside the
  // first files, and their one Chromium starts beside the template's migrations.
  const browsers = process.env.REFERRAL_TEST_BROWSER === '1';
  if (browsers) startWebBuildInBackground();
  const chromium = browsers ? startChromiumServer() : Promise.resolve();
  await startContainersIfAsked();
  const run = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  process.env.REFERRAL_TEST_RUN = run;
  const template = `${TEST_DB_PREFIX}${run}_template`;

  const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(
      `tests need PostgreSQL at ${databaseUrl('postgres')} (set DATABASE_URL, or TESTCONTAINERS=1 with a container engine): ${String(error)}`,
      { cause: error },
    );
  }
  await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(template)}`);
  await admin.end();

  const logger = createLogger({ service: 'test-setup', level: 'warn' });
  const schemas = [
    { schema: ACCESS_SCHEMA, migrations: accessMigrations },
    // Each service's migrations under its default configuration: the template holds no data for a
    // migration to work on (the tax key ring, for one, is never used), so the defaults will do.
    ...SERVICE_MANIFESTS.map((manifest) => ({
      schema: manifest.service.schema,
      migrations: manifest.migrations({ config: loadConfig(manifest.configSchema, {}), logger }),
    })),
  ];
  for (const { schema, migrations } of schemas) {
    const database = openDatabase({ url: databaseUrl(template), schema, poolMax: 1, applicationName: 'test-setup', logger });
    await migrateToLatest(database.db, schema, migrations, logger);
    await database.close();
  }
  await chromium;
}
