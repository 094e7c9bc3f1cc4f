import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { AgencyDatabase } from '../../../services/agency/database';
import { agencyMigrations } from '../../../services/agency/migrations';
import { SERVICE_CATALOG } from '../../../services/platform/service-catalog';
import { randomEvmAddress } from '../../helpers/evm-addresses';
import { LogCapture } from '../../helpers/log-capture';
import { type DatabaseBeforeMigration, databaseBeforeMigration } from '../../helpers/migration-database';

const SCHEMA = SERVICE_CATALOG.agency.schema;

/**
 * Migration 0014 on rows the code before it wrote: `end_users` held the converting users (from the
 * metrics consumer); after it, `end_users` counts every referral of the affiliate and
 * `converting_users` keeps the old figure, on the metrics rows and on the list's filter entries.
 */
describe('migration 0014: end users are every referred user, converting users kept apart', () => {
  const logs = new LogCapture();
  let database: DatabaseBeforeMigration<AgencyDatabase>;
  const projectId = randomUUID();
  const segmentId = randomUUID();
  const ids = { busy: randomUUID(), quiet: randomUUID(), idle: randomUUID() };

  beforeAll(async () => {
    database = await databaseBeforeMigration<AgencyDatabase>(SCHEMA, agencyMigrations, (name) => name.startsWith('0014_'), logs);

    const db = database.db;
    const now = new Date('2026-11-21T12:00:00.000Z');
    for (const [key, id] of Object.entries(ids)) {
      const identifier = randomEvmAddress();
      await sql`INSERT INTO affiliates (id, project_id, identifier_type, identifier, name, status, joined_at, updated_at)
                VALUES (${id}, ${projectId}, 'evm_address', ${identifier}, ${key}, 'active', ${now}, ${now})`.execute(db);
      await sql`INSERT INTO affiliate_metrics (affiliate_id, project_id, updated_at) VALUES (${id}, ${projectId}, ${now})`.execute(db);
      await sql`INSERT INTO affiliate_codes (project_id, code, affiliate_id, created_at) VALUES (${projectId}, ${`${key}_code`}, ${id}, ${now})`.execute(
        db,
      );
      // Every affiliate is in one segment: its filter entry copies end_users.
      await sql`INSERT INTO audience_memberships (project_id, segment_id, identifier_type, identifier, kind, present, changed_at)
                VALUES (${projectId}, ${segmentId}, 'evm_address', ${identifier}, 'static', true, ${now})`.execute(db);
    }
    // busy referred 4 users, 2 of whom converted (the old end_users); quiet referred 2, none converted; idle nobody.
    const refer = async (affiliate: keyof typeof ids, count: number) => {
      for (let index = 0; index < count; index++) {
        await sql`INSERT INTO referrals (project_id, identifier_type, identifier, affiliate_id, code, referred_at)
                  VALUES (${projectId}, 'evm_address', ${randomEvmAddress()}, ${ids[affiliate]}, ${`${affiliate}_code`}, ${now})`.execute(db);
      }
    };
    await refer('busy', 4);
    await refer('quiet', 2);
    await sql`UPDATE affiliate_metrics SET end_users = 2, conversions = 3 WHERE affiliate_id = ${ids.busy}`.execute(db);

    await database.migrateRest();
  });
  afterAll(async () => {
    await database.close();
  });

  it('counts every referral as an end user and keeps the converting users the old figure held', async () => {
    const { rows } = await sql<{ name: string; end_users: string; converting_users: string; conversions: string }>`
      SELECT a.name, m.end_users::text, m.converting_users::text, m.conversions::text
      FROM affiliate_metrics m JOIN affiliates a ON a.id = m.affiliate_id ORDER BY a.name`.execute(database.db);
    expect(rows).toEqual([
      { name: 'busy', end_users: '4', converting_users: '2', conversions: '3' },
      { name: 'idle', end_users: '0', converting_users: '0', conversions: '0' },
      { name: 'quiet', end_users: '2', converting_users: '0', conversions: '0' },
    ]);
  });

  it('carries the new end users onto the filter entries the list sorts by', async () => {
    const { rows } = await sql<{ name: string; end_users: string }>`
      SELECT a.name, e.end_users::text FROM affiliate_filter_entries e JOIN affiliates a ON a.id = e.affiliate_id
      WHERE e.kind = 'audience' AND e.value = ${segmentId} ORDER BY a.name`.execute(database.db);
    expect(rows).toEqual([
      { name: 'busy', end_users: '4' },
      { name: 'idle', end_users: '0' },
      { name: 'quiet', end_users: '2' },
    ]);
  });
});
