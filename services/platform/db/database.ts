import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Logger } from '../logger';
import { PreparingClient } from './prepared-statements';
import { typeParsers } from './type-parsers';

export interface DatabaseOptions {
  url: string;
  /** The service's own schema: its tables are found through search_path, nobody else's are. */
  schema: string;
  poolMax: number;
  applicationName: string;
  logger: Logger;
  /** How long a caller waits for a free connection before its query fails (10 s unless said). */
  acquireTimeoutMs?: number;
}

export interface Database<DB> {
  db: Kysely<DB>;
  pool: pg.Pool;
  close(): Promise<void>;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

export function openDatabase<DB>(options: DatabaseOptions): Database<DB> {
  if (!SCHEMA_NAME.test(options.schema)) throw new Error(`invalid schema name: ${options.schema}`);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolMax,
    application_name: options.applicationName,
    options: `-c search_path=${options.schema}`,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: options.acquireTimeoutMs ?? 10_000,
    // bigint, numeric, date and timestamps as the table types say (./type-parsers.ts).
    types: typeParsers,
    // Registered hot statements go as named prepared statements (./prepared-statements.ts).
    Client: PreparingClient,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', (error) => options.logger.warn({ err: error }, 'idle database connection failed'));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return { db, pool, close: () => db.destroy() };
}

/** Creates the database named in `url` when it does not exist yet (first start on a fresh server). */
export async function ensureDatabaseExists(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const client = new pg.Client({ connectionString: maintenance.toString() });
  await client.connect();
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (existing.rowCount === 0) {
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`).catch((error: { code?: string }) => {
        // Another process created it between our check and our CREATE: that is the goal anyway.
        // A CREATE racing another CREATE fails on the catalog's unique index (23505) instead of 42P04.
        if (error.code !== '42P04' && error.code !== '23505') throw error;
      });
    }
  } finally {
    await client.end();
  }
}
