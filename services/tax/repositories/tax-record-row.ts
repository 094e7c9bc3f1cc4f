import type { ExpressionBuilder, Selectable } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import type { TaxDatabase, TaxRecordTable } from '../database';
import type { TaxRecord } from '../domain/tax-record';
import { addressFromJson } from './address-column';
import { readSealed } from './sealed-columns';

/**
 * How a tax record is read, shared by the reads and the transitions: its columns, its row type
 * (derived from the table type) and the row -> record mapping. Dates come back as YYYY-MM-DD
 * text (services/platform/db/type-parsers.ts), so no time zone can shift them.
 */
export const RECORD_COLUMNS = [
  'id',
  'project_id',
  'identifier_type',
  'identifier',
  'form_type',
  'status',
  'legal_name',
  'country',
  'tin_type',
  'tax_id_key_id',
  'tax_id_iv',
  'tax_id_ciphertext',
  'tax_id_auth_tag',
  'tax_classification',
  'address',
  'permanent_address',
  'date_of_birth',
  'chapter3_status',
  'foreign_tin_not_required',
  'foreign_tin_not_required_reason',
  'signature_name',
  'signature_date',
  'submitted_at',
  'approved_at',
  'expires_at',
  'revoked_at',
  'revoked_reason',
] as const satisfies ReadonlyArray<keyof TaxRecordTable>;

export type TaxRecordRow = Pick<Selectable<TaxRecordTable>, (typeof RECORD_COLUMNS)[number]>;

type RecordsExpression = ExpressionBuilder<TaxDatabase, 'tax_records'>;

/** A user's current record: not replaced by a later one, and not quarantined (migration 0002). */
export function isCurrent(eb: RecordsExpression) {
  return eb.and([eb('superseded_at', 'is', null), eb('quarantined_at', 'is', null)]);
}

/** The current record of one user of a project (at most one: the unique index tax_records_one_current). */
export function currentRecordOf(projectId: string, user: UserIdentifier) {
  return (eb: RecordsExpression) =>
    eb.and([
      eb('project_id', '=', projectId),
      eb('identifier_type', '=', user.identifierType),
      eb('identifier', '=', user.identifier),
      isCurrent(eb),
    ]);
}

export function toTaxRecord(row: TaxRecordRow): TaxRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    user: { identifier: row.identifier, identifierType: row.identifier_type },
    status: row.status,
    formType: row.form_type,
    legalName: row.legal_name,
    country: row.country,
    tinType: row.tin_type,
    sealedTaxId: readSealed(
      { keyId: row.tax_id_key_id, iv: row.tax_id_iv, ciphertext: row.tax_id_ciphertext, authTag: row.tax_id_auth_tag },
      `tax record ${row.id}`,
    ),
    taxClassification: row.tax_classification,
    address: addressFromJson(row.address),
    permanentAddress: addressFromJson(row.permanent_address),
    dateOfBirth: row.date_of_birth,
    chapter3Status: row.chapter3_status,
    foreignTinNotRequired: row.foreign_tin_not_required,
    foreignTinNotRequiredReason: row.foreign_tin_not_required_reason,
    signatureName: row.signature_name,
    signatureDate: row.signature_date,
    submittedAt: row.submitted_at,
    approvedAt: row.approved_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    revokedReason: row.revoked_reason,
  };
}
