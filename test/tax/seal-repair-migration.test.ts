import { randomUUID } from 'node:crypto';
import { Migrator, sql } from 'kysely';
import { FieldCipher } from '../../services/platform/crypto/field-cipher';
import { type Database, openDatabase } from '../../services/platform/db/database';
import { migrateToLatest } from '../../services/platform/db/migrate';
import type { UserIdentifier } from '../../services/rules/identifiers';
import type { TaxDatabase } from '../../services/tax/database';
import { maskedView } from '../../services/tax/domain/tax-info-view';
import { TinVault } from '../../services/tax/domain/tin-vault';
import { taxMigrations } from '../../services/tax/migrations';
import { QUARANTINE_REASONS } from '../../services/tax/migrations/0002_repair_non_canonical_seals';
import { TaxRecordRepository } from '../../services/tax/repositories/tax-record.repository';
import { SERVICE_CATALOG } from '../../services/platform/service-catalog';
import { TaxTransitionRepository } from '../../services/tax/repositories/tax-transition.repository';
import { LogCapture } from '../helpers/log-capture';
import { createEmptyDatabase } from '../helpers/test-database';

const TAX_SCHEMA = SERVICE_CATALOG.tax.schema;

const NOW = new Date('2026-11-21T12:00:00.000Z');
const keys = new Map([
  ['old', Buffer.alloc(32, 1)],
  ['new', Buffer.alloc(32, 2)],
]);
/** The key ring as it was when the records were written (the old key active)... */
const writtenWith = new FieldCipher(keys, 'old');
/** ...and as the migration runs (a newer key active; 'old' still listed so old values open). */
const vault = new TinVault(new FieldCipher(keys, 'new'));
const unknownKey = new FieldCipher(new Map([['gone', Buffer.alloc(32, 3)]]), 'gone');

/** The associated data exactly as the code before the fix built it: the ids as the caller spelled them. */
const oldAad = (projectId: string, user: UserIdentifier, recordId: string) =>
  `tax_records/${projectId}/${user.identifierType}:${user.identifier}/${recordId}/tax_id_number`;

/** Upper-cases every other hex letter of a UUID: a spelling only the exhaustive search finds. */
const mixedCase = (uuid: string) => {
  let letter = 0;
  return uuid.replace(/[a-f]/g, (character) => (letter++ % 2 ? character.toUpperCase() : character));
};

/** Migration 0002 on records written the way the code before the fix wrote them. */
describe('migration 0002: tax ids sealed under non-canonical ids are repaired or quarantined', () => {
  let empty: Awaited<ReturnType<typeof createEmptyDatabase>>;
  const logs = new LogCapture();
  const logger = logs.logger('tax');
  let database: Database<TaxDatabase>;
  // A project id with no more than 16 hex letters, so that every mix of letter cases is tried.
  let project = randomUUID();
  while ((project.match(/[a-f]/g) ?? []).length > 16) project = randomUUID();
  const user = (n: number): UserIdentifier => ({ identifier: `0xabcdef${n.toString(16).padStart(34, '0')}`, identifierType: 'evm_address' });

  async function insertRecord(options: {
    user: UserIdentifier;
    sealedWith: FieldCipher;
    aad: (recordId: string) => string;
    tin?: string;
    /** The identifier column as written (the user's canonical spelling unless given). */
    storedIdentifier?: string;
  }): Promise<string> {
    const id = randomUUID();
    const sealed = options.sealedWith.seal(options.tin ?? '123456789', options.aad(id));
    await sql`
      INSERT INTO tax_records (id, project_id, identifier_type, identifier, form_type, status, legal_name, country, tin_type,
        tax_id_key_id, tax_id_iv, tax_id_ciphertext, tax_id_auth_tag, tax_classification, signature_name, signature_date, submitted_at)
      VALUES (${id}, ${project}, ${options.user.identifierType}, ${options.storedIdentifier ?? options.user.identifier}, 'w9', 'submitted',
        'Ada Lovelace', 'US', 'ssn', ${sealed.keyId}, ${sealed.iv}, ${sealed.ciphertext}, ${sealed.authTag}, 'individual', 'Ada Lovelace',
        '2026-11-20', ${NOW})`.execute(database.db);
    await sql`
      INSERT INTO tax_status_events (record_id, project_id, identifier_type, identifier, from_status, to_status, actor_type, actor_id, occurred_at)
      VALUES (${id}, ${project}, ${options.user.identifierType}, ${options.storedIdentifier ?? options.user.identifier}, 'not_submitted',
        'submitted', 'affiliate', ${options.user.identifier}, ${NOW})`.execute(database.db);
    return id;
  }

  const rowOf = async (id: string) =>
    (
      await sql<{
        identifier: string;
        tax_id_key_id: string;
        tax_id_ciphertext: Buffer;
        quarantined_at: Date | null;
        quarantine_reason: string | null;
      }>`
        SELECT identifier, tax_id_key_id, tax_id_ciphertext, quarantined_at, quarantine_reason FROM tax_records WHERE id = ${id}`.execute(database.db)
    ).rows[0]!;

  const ids: Record<string, string> = {};
  let before: Record<string, Buffer>;

  beforeAll(async () => {
    empty = await createEmptyDatabase();
    database = openDatabase<TaxDatabase>({ url: empty.url, schema: TAX_SCHEMA, poolMax: 2, applicationName: 'test', logger });
    const migrations = taxMigrations({ vault, logger });
    await sql`CREATE SCHEMA ${sql.id(TAX_SCHEMA)}`.execute(database.db);
    const migrator = new Migrator({
      db: database.db,
      migrationTableSchema: TAX_SCHEMA,
      provider: { getMigrations: async () => ({ '0001_tax_tables': migrations['0001_tax_tables']! }) },
    });
    const { error } = await migrator.migrateToLatest();
    if (error) throw error;

    const upper = project.toUpperCase();
    ids.uppercase = await insertRecord({ user: user(1), sealedWith: writtenWith, aad: (id) => oldAad(upper, user(1), id), tin: '111223333' });
    ids.mixed = await insertRecord({ user: user(2), sealedWith: writtenWith, aad: (id) => oldAad(mixedCase(project), user(2), id) });
    ids.sound = await insertRecord({ user: user(3), sealedWith: writtenWith, aad: (id) => oldAad(project, user(3), id) });
    ids.lost = await insertRecord({ user: user(4), sealedWith: writtenWith, aad: () => oldAad(project, user(4), randomUUID()) });
    ids.keyMissing = await insertRecord({ user: user(5), sealedWith: unknownKey, aad: (id) => oldAad(project, user(5), id) });
    const shouted = `0x${user(6).identifier.slice(2).toUpperCase()}`;
    ids.renamed = await insertRecord({
      user: user(6),
      storedIdentifier: shouted,
      sealedWith: writtenWith,
      aad: (id) => oldAad(upper, { ...user(6), identifier: shouted }, id),
    });
    const ciphertexts = await sql<{ id: string; tax_id_ciphertext: Buffer }>`SELECT id, tax_id_ciphertext FROM tax_records`.execute(database.db);
    before = Object.fromEntries(Object.entries(ids).map(([key, id]) => [key, ciphertexts.rows.find((row) => row.id === id)!.tax_id_ciphertext]));

    await migrateToLatest(database.db, TAX_SCHEMA, migrations, logger);
  });
  afterAll(async () => {
    await database.close();
    await empty?.drop();
  });

  const records = () => new TaxRecordRepository(database.db);

  it('re-seals a tax id sealed under the uppercase project id under the canonical binding, with the active key', async () => {
    const row = await rowOf(ids.uppercase!);
    expect(row).toMatchObject({ tax_id_key_id: 'new', quarantined_at: null });
    expect(row.tax_id_ciphertext.equals(before.uppercase!)).toBe(false);
    const record = (await records().findCurrent(project, user(1)))!;
    expect(vault.openRecordTin(record.sealedTaxId!, { projectId: project, user: user(1), recordId: record.id })).toBe('111223333');
    expect(maskedView(record, vault, NOW)).toMatchObject({ unreadable: false, taxIdNumberMasked: '*****3333' });
  });

  it('finds a mixed-case spelling too', async () => {
    const record = (await records().findCurrent(project, user(2)))!;
    expect(record.id).toBe(ids.mixed);
    expect(maskedView(record, vault, NOW)).toMatchObject({ unreadable: false, taxIdNumberMasked: '*****6789' });
  });

  it('writes a non-canonical identifier canonically, in the record and its history, and re-seals under it', async () => {
    const row = await rowOf(ids.renamed!);
    expect(row).toMatchObject({ identifier: user(6).identifier, quarantined_at: null });
    const record = (await records().findCurrent(project, user(6)))!;
    expect(maskedView(record, vault, NOW).unreadable).toBe(false);
    const { rows } = await sql<{ identifier: string }>`SELECT identifier FROM tax_status_events WHERE record_id = ${ids.renamed}`.execute(
      database.db,
    );
    expect(rows).toEqual([{ identifier: user(6).identifier }]);
  });

  it('leaves a sound record as it was', async () => {
    const row = await rowOf(ids.sound!);
    expect(row).toMatchObject({ tax_id_key_id: 'old', quarantined_at: null });
    expect(row.tax_id_ciphertext.equals(before.sound!)).toBe(true);
  });

  it('quarantines a record whose tax id opens under no spelling: reads skip it, the row stays, the affiliate can submit again', async () => {
    const row = await rowOf(ids.lost!);
    expect(row.quarantined_at).toBeInstanceOf(Date);
    expect(row.quarantine_reason).toBe(QUARANTINE_REASONS.unreadable);
    expect(await records().findCurrent(project, user(4))).toBeUndefined();
    const listed = await records().list(project, {}, { page: 1, pageSize: 100, offset: 0 }, NOW);
    expect(listed.records.map((record) => record.id).sort()).toEqual([ids.uppercase, ids.mixed, ids.sound, ids.keyMissing, ids.renamed].sort());
    expect(listed.total).toBe(5);

    const resubmitted = await new TaxTransitionRepository(database.db).submit({
      id: randomUUID(),
      projectId: project,
      user: user(4),
      fields: {
        formType: 'w9',
        legalName: 'Ada Lovelace',
        country: 'US',
        tinType: 'ssn',
        taxClassification: 'individual',
        address: null,
        permanentAddress: null,
        dateOfBirth: null,
        chapter3Status: null,
        foreignTinNotRequired: false,
        foreignTinNotRequiredReason: null,
        signatureName: 'Ada Lovelace',
        signatureDate: '2026-11-20',
      },
      sealedTaxId: vault.sealRecordTin('123456789', { projectId: project, user: user(4), recordId: randomUUID() }),
      now: NOW,
    });
    expect(resubmitted.replaced).toBeNull();
    expect((await rowOf(ids.lost!)).quarantined_at).toBeInstanceOf(Date);
  });

  it('leaves a record sealed with a key that is not configured alone: nothing can be said without the key', async () => {
    const row = await rowOf(ids.keyMissing!);
    expect(row).toMatchObject({ tax_id_key_id: 'gone', quarantined_at: null });
    expect(row.tax_id_ciphertext.equals(before.keyMissing!)).toBe(true);
  });

  it('reports what it did, by record id, and never a tax id', () => {
    const line = logs.lines.map((text) => JSON.parse(text)).find((entry) => entry.msg?.startsWith('tax records sealed under non-canonical ids'));
    expect(line).toMatchObject({
      level: 'warn',
      repaired: 3,
      quarantined: 1,
      key_missing: 1,
      quarantined_ids: [ids.lost],
      key_missing_ids: [ids.keyMissing],
    });
    expect(line.repaired_ids.sort()).toEqual([ids.uppercase, ids.mixed, ids.renamed].sort());
    expect(logs.text()).not.toContain('111223333');
    expect(logs.text()).not.toContain('123456789');
  });
});
