import { randomUUID } from 'node:crypto';
import { Migrator, sql } from 'kysely';
import { type Database, openDatabase } from '../../services/platform/db/database';
import { migrateToLatest } from '../../services/platform/db/migrate';
import { SERVICE_CATALOG } from '../../services/platform/service-catalog';
import type { TaxDatabase } from '../../services/tax/database';
import { TaxSettingsService } from '../../services/tax/domain/tax-settings.service';
import { taxMigrations } from '../../services/tax/migrations';
import { TaxSettingsRepository } from '../../services/tax/repositories/tax-settings.repository';
import { TestClock } from '../helpers/clock';
import { testTinVault } from '../helpers/tax-domain';
import { LogCapture } from '../helpers/log-capture';
import { createEmptyDatabase } from '../helpers/test-database';

const TAX_SCHEMA = SERVICE_CATALOG.tax.schema;
const BEFORE = new Date('2026-11-01T10:00:00.000Z');

/**
 * Migration 0006_w8_expiry_rule_default on settings rows as the code before it wrote them: the
 * default W-8 rule becomes 3 years from approval; a rule the column's default never wrote
 * (irs_calendar) was chosen and stays; 'three_years', which the default wrote into every row,
 * follows the new default; no form changes.
 */
describe('migration 0006: the W-8 expiry rule of the specification becomes the default', () => {
  let empty: Awaited<ReturnType<typeof createEmptyDatabase>>;
  const logs = new LogCapture();
  const logger = logs.logger('tax');
  const vault = testTinVault();
  let database: Database<TaxDatabase>;
  const projects = { defaulted: randomUUID(), irs: randomUUID(), noRow: randomUUID() };
  const recordId = randomUUID();
  let versionsBefore: Record<string, unknown>;

  beforeAll(async () => {
    empty = await createEmptyDatabase();
    database = openDatabase<TaxDatabase>({ url: empty.url, schema: TAX_SCHEMA, poolMax: 2, applicationName: 'test', logger });
    const migrations = taxMigrations({ vault, logger });
    const before = Object.fromEntries(Object.entries(migrations).filter(([migration]) => migration < '0006'));
    await sql`CREATE SCHEMA ${sql.id(TAX_SCHEMA)}`.execute(database.db);
    const migrator = new Migrator({ db: database.db, migrationTableSchema: TAX_SCHEMA, provider: { getMigrations: async () => before } });
    const { error } = await migrator.migrateToLatest();
    if (error) throw error;

    // As the code before wrote them: turning require_tax_info on stored the column's default rule; the other chose irs_calendar.
    await sql`INSERT INTO tax_settings (project_id, require_tax_info, created_at, updated_at) VALUES (${projects.defaulted}, true, ${BEFORE}, ${BEFORE})`.execute(
      database.db,
    );
    await sql`INSERT INTO tax_settings (project_id, require_tax_info, w8_expiry_rule, created_at, updated_at)
      VALUES (${projects.irs}, true, 'irs_calendar', ${BEFORE}, ${BEFORE})`.execute(database.db);
    // A W-8 approved under the old default: its expires_at stays what it was given.
    await sql`
      INSERT INTO tax_records (id, project_id, identifier_type, identifier, form_type, status, legal_name, country,
        signature_name, signature_date, submitted_at, approved_at, expires_at, date_of_birth, foreign_tin_not_required)
      VALUES (${recordId}, ${projects.defaulted}, 'evm_address', ${`0x${'ab'.repeat(20)}`}, 'w8ben', 'approved', 'Grace Hopper', 'DE',
        'Grace Hopper', '2026-03-10', ${BEFORE}, ${BEFORE}, '2029-03-10T00:00:00Z', '1990-12-09', true)`.execute(database.db);
    const stored = await sql<{
      project_id: string;
      version: string;
      updated_at: Date;
    }>`SELECT project_id, version, updated_at FROM tax_settings`.execute(database.db);
    expect(stored.rows.map((row) => row.project_id).sort()).toEqual([projects.defaulted, projects.irs].sort());
    versionsBefore = Object.fromEntries(stored.rows.map((row) => [row.project_id, [String(row.version), row.updated_at.toISOString()]]));

    await migrateToLatest(database.db, TAX_SCHEMA, migrations, logger);
  });
  afterAll(async () => {
    await database?.close();
    await empty?.drop();
  });

  const settings = () => new TaxSettingsService(new TaxSettingsRepository(database.db), vault, new TestClock('2026-12-01T00:00:00.000Z'), logger);
  const storedRule = async (projectId: string) =>
    (await sql<{ w8_expiry_rule: string | null }>`SELECT w8_expiry_rule FROM tax_settings WHERE project_id = ${projectId}`.execute(database.db))
      .rows[0]?.w8_expiry_rule;

  it('moves a row holding the old default (three_years) to the new default: stored as no choice, read as three_years_from_approval', async () => {
    expect(await storedRule(projects.defaulted)).toBeNull();
    expect(await settings().get(projects.defaulted)).toMatchObject({
      requireTaxInfo: true,
      w8ExpiryRule: 'three_years_from_approval',
      w8ExpiryRuleChosen: false,
    });
  });

  it('keeps a rule the project chose (irs_calendar)', async () => {
    expect(await storedRule(projects.irs)).toBe('irs_calendar');
    expect(await settings().get(projects.irs)).toMatchObject({ w8ExpiryRule: 'irs_calendar', w8ExpiryRuleChosen: true });
  });

  it('gives a project without settings the new default', async () => {
    expect(await storedRule(projects.noRow)).toBeUndefined();
    expect(await settings().get(projects.noRow)).toMatchObject({ w8ExpiryRule: 'three_years_from_approval', w8ExpiryRuleChosen: false });
  });

  it('changes no version, no updated_at and no approved form', async () => {
    const after = await sql<{
      project_id: string;
      version: string;
      updated_at: Date;
    }>`SELECT project_id, version, updated_at FROM tax_settings`.execute(database.db);
    expect(Object.fromEntries(after.rows.map((row) => [row.project_id, [String(row.version), row.updated_at.toISOString()]]))).toEqual(
      versionsBefore,
    );
    const record = await sql<{ status: string; expires_at: Date }>`SELECT status, expires_at FROM tax_records WHERE id = ${recordId}`.execute(
      database.db,
    );
    expect(record.rows).toEqual([{ status: 'approved', expires_at: new Date('2029-03-10T00:00:00.000Z') }]);
  });

  it('lets a project choose any of the three rules again, and refuses others in the table', async () => {
    await settings().update(projects.defaulted, ['w8_expiry_rule'], { w8ExpiryRule: 'three_years' });
    expect(await storedRule(projects.defaulted)).toBe('three_years');
    await expect(sql`UPDATE tax_settings SET w8_expiry_rule = 'five_years' WHERE project_id = ${projects.irs}`.execute(database.db)).rejects.toThrow(
      /tax_settings_w8_expiry_rule_check/,
    );
  });
});
