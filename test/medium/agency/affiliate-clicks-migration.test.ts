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
 * Migration 0023 on rows the code before it wrote: the clicks stored already are counted once onto
 * each affiliate's metrics row and its filter entries; afterwards the trigger on code_clicks adds
 * new clicks, and 0008's functions (rewritten by 0023) copy the clicks onto entries they create.
 */
describe('migration 0023: an affiliate’s clicks on its metrics row and its filter entries', () => {
  const logs = new LogCapture();
  let database: DatabaseBeforeMigration<AgencyDatabase>;
  const projectId = randomUUID();
  const [segmentId, laterSegmentId] = [randomUUID(), randomUUID()];
  const ids = { busy: randomUUID(), quiet: randomUUID(), idle: randomUUID() };
  const identifiers = { busy: randomEvmAddress(), quiet: randomEvmAddress(), idle: randomEvmAddress() };
  const now = new Date('2026-11-21T12:00:00.000Z');
  const click = (code: string, trackingId: string, day = '2026-11-20') =>
    sql`INSERT INTO code_clicks (project_id, code, tracking_id, day, first_at) VALUES (${projectId}, ${code}, ${trackingId}, ${day}::date, ${now})`.execute(
      database.db,
    );
  const figures = async () => {
    const { rows } = await sql<{ name: string; clicks: string; entry: string | null }>`
      SELECT a.name, m.clicks::text AS clicks, e.clicks::text AS entry
      FROM affiliate_metrics m JOIN affiliates a ON a.id = m.affiliate_id
      LEFT JOIN affiliate_filter_entries e ON e.affiliate_id = a.id AND e.kind = 'audience' AND e.value = ${segmentId}
      ORDER BY a.name`.execute(database.db);
    return rows;
  };

  beforeAll(async () => {
    database = await databaseBeforeMigration<AgencyDatabase>(SCHEMA, agencyMigrations, (name) => name.startsWith('0023_'), logs);

    const db = database.db;
    for (const [key, id] of Object.entries(ids) as Array<[keyof typeof ids, string]>) {
      await sql`INSERT INTO affiliates (id, project_id, identifier_type, identifier, name, status, joined_at, updated_at)
                VALUES (${id}, ${projectId}, 'evm_address', ${identifiers[key]}, ${key}, 'active', ${now}, ${now})`.execute(db);
      await sql`INSERT INTO affiliate_metrics (affiliate_id, project_id, updated_at) VALUES (${id}, ${projectId}, ${now})`.execute(db);
      await sql`INSERT INTO affiliate_codes (project_id, code, affiliate_id, created_at) VALUES (${projectId}, ${`${key.toUpperCase()}_Code`}, ${id}, ${now})`.execute(
        db,
      );
      await sql`INSERT INTO audience_memberships (project_id, segment_id, identifier_type, identifier, kind, present, changed_at)
                VALUES (${projectId}, ${segmentId}, 'evm_address', ${identifiers[key]}, 'static', true, ${now})`.execute(db);
    }
    await sql`INSERT INTO affiliate_codes (project_id, code, affiliate_id, created_at) VALUES (${projectId}, 'busy_second', ${ids.busy}, ${now})`.execute(
      db,
    );
    // busy: three clicks over its two codes; quiet: one; a code nobody holds: one, nobody's.
    await click('busy_code', 't1');
    await click('busy_code', 't2');
    await click('busy_second', 't1');
    await click('quiet_code', 't1');
    await click('nobody', 't1');

    await database.migrateRest();
  });
  afterAll(async () => {
    await database.close();
  });

  it('counts the clicks stored before it onto the metrics rows and the filter entries', async () => {
    expect(await figures()).toEqual([
      { name: 'busy', clicks: '3', entry: '3' },
      { name: 'idle', clicks: '0', entry: '0' },
      { name: 'quiet', clicks: '1', entry: '1' },
    ]);
  });

  it('adds the clicks written after it, several in one statement, and copies them onto entries made later', async () => {
    await sql`INSERT INTO code_clicks (project_id, code, tracking_id, day, first_at)
              VALUES (${projectId}, 'busy_second', 't9', '2026-11-21', ${now}), (${projectId}, 'idle_code', 't9', '2026-11-21', ${now}),
                     (${projectId}, 'idle_code', 't8', '2026-11-21', ${now})`.execute(database.db);
    expect(await figures()).toEqual([
      { name: 'busy', clicks: '4', entry: '4' },
      { name: 'idle', clicks: '2', entry: '2' },
      { name: 'quiet', clicks: '1', entry: '1' },
    ]);
    // A membership after it: the new entry carries the affiliate's clicks (0008's function as 0023 rewrote it).
    await sql`INSERT INTO audience_memberships (project_id, segment_id, identifier_type, identifier, kind, present, changed_at)
              VALUES (${projectId}, ${laterSegmentId}, 'evm_address', ${identifiers.busy}, 'static', true, ${now})`.execute(database.db);
    const { rows } = await sql<{ clicks: string }>`
      SELECT clicks::text FROM affiliate_filter_entries WHERE affiliate_id = ${ids.busy} AND value = ${laterSegmentId}`.execute(database.db);
    expect(rows).toEqual([{ clicks: '4' }]);
  });
});
