import { type Kysely, sql } from 'kysely';
import type { SealedValue } from '../../platform/crypto/field-cipher';
import { appendOutboxEvents } from '../../platform/outbox/append';
import type { OutboxWaker } from '../../platform/outbox/relay';
import type { TaxDatabase, TaxSettingsRow } from '../database';
import type { W8ExpiryRule } from '../domain/vocabulary';
import type { Address } from '../domain/address';
import { addressFromJson, addressToJson } from './address-column';
import { readSealed } from './sealed-columns';

export interface TaxSettingsRecord {
  projectId: string;
  requireTaxInfo: boolean;
  companyLegalName: string | null;
  companyAddress: Address | null;
  companyTaxId: SealedValue | null;
  companyContactEmail: string | null;
  /** The rule the project chose; null while it follows the default (domain/w8-expiry.ts). */
  w8ExpiryRule: W8ExpiryRule | null;
  /** Null while the project has never changed its settings. */
  updatedAt: Date | null;
}

/** Only the fields present change; null clears a company field, or returns the expiry rule to the default. */
export interface TaxSettingsChanges {
  requireTaxInfo?: boolean;
  companyLegalName?: string | null;
  companyAddress?: Address | null;
  companyTaxId?: SealedValue | null;
  companyContactEmail?: string | null;
  w8ExpiryRule?: W8ExpiryRule | null;
}

export function defaultSettings(projectId: string): TaxSettingsRecord {
  return {
    projectId,
    requireTaxInfo: false,
    companyLegalName: null,
    companyAddress: null,
    companyTaxId: null,
    companyContactEmail: null,
    w8ExpiryRule: null,
    updatedAt: null,
  };
}

export class TaxSettingsRepository {
  constructor(
    private readonly db: Kysely<TaxDatabase>,
    /** Woken after each write (its event leaves at once); none where nothing relays (migrations, tests). */
    private readonly outbox: OutboxWaker = { wake: () => undefined },
  ) {}

  /** The project's settings, or the defaults when it never changed them. */
  async get(projectId: string): Promise<TaxSettingsRecord> {
    const row = await this.db.selectFrom('tax_settings').selectAll().where('project_id', '=', projectId).executeTakeFirst();
    return row ? toRecord(row) : defaultSettings(projectId);
  }

  /**
   * One statement: the first change creates the row, later ones update only the named columns and
   * count the row's version up (concurrent writes take turns on the row, so versions follow the
   * order of the writes). Announced in the same transaction (tax.tax_settings.changed: what the
   * effective status reads, as it is after the write) for the agency's projection.
   */
  async update(projectId: string, changes: TaxSettingsChanges, now: Date): Promise<TaxSettingsRecord> {
    const columns = toColumns(changes);
    const row = await this.db.transaction().execute(async (trx) => {
      const written = await trx
        .insertInto('tax_settings')
        .values({ project_id: projectId, ...columns, created_at: now, updated_at: now })
        .onConflict((conflict) =>
          conflict.column('project_id').doUpdateSet({ ...columns, updated_at: now, version: sql<bigint>`tax_settings.version + 1` }),
        )
        .returningAll()
        .executeTakeFirstOrThrow();
      await appendOutboxEvents(trx, now, [
        {
          type: 'tax.tax_settings.changed',
          projectId,
          payload: {
            project_id: projectId,
            require_tax_info: written.require_tax_info,
            version: String(written.version),
            changed_at: now.toISOString(),
          },
        },
      ]);
      return written;
    });
    this.outbox.wake();
    return toRecord(row);
  }
}

function toColumns(changes: TaxSettingsChanges) {
  return {
    ...(changes.requireTaxInfo !== undefined && { require_tax_info: changes.requireTaxInfo }),
    ...(changes.companyLegalName !== undefined && { company_legal_name: changes.companyLegalName }),
    ...(changes.companyAddress !== undefined && { company_address: addressToJson(changes.companyAddress) }),
    ...(changes.companyTaxId !== undefined && {
      company_tax_id_key_id: changes.companyTaxId?.keyId ?? null,
      company_tax_id_iv: changes.companyTaxId?.iv ?? null,
      company_tax_id_ciphertext: changes.companyTaxId?.ciphertext ?? null,
      company_tax_id_auth_tag: changes.companyTaxId?.authTag ?? null,
    }),
    ...(changes.companyContactEmail !== undefined && { company_contact_email: changes.companyContactEmail }),
    ...(changes.w8ExpiryRule !== undefined && { w8_expiry_rule: changes.w8ExpiryRule }),
  };
}

function toRecord(row: TaxSettingsRow): TaxSettingsRecord {
  return {
    projectId: row.project_id,
    requireTaxInfo: row.require_tax_info,
    companyLegalName: row.company_legal_name,
    companyAddress: addressFromJson(row.company_address),
    companyTaxId: readSealed(
      {
        keyId: row.company_tax_id_key_id,
        iv: row.company_tax_id_iv,
        ciphertext: row.company_tax_id_ciphertext,
        authTag: row.company_tax_id_auth_tag,
      },
      `the tax settings of project ${row.project_id}`,
    ),
    companyContactEmail: row.company_contact_email,
    w8ExpiryRule: row.w8_expiry_rule,
    updatedAt: row.updated_at,
  };
}
