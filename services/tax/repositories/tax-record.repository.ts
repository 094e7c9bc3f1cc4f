import { type Kysely, sql, type Transaction } from 'kysely';
import type { SealedValue } from '../../common/crypto/field-cipher';
import { isUniqueViolation } from '../../common/db/errors';
import type { Page } from '../../common/pagination';
import type { IdentifierType, UserIdentifier } from '../../common/identifiers';
import type { AddressJson, TaxDatabase } from '../database';
import type { ActorType, Chapter3Status, FormType, RecordStatus, TaxClassification, TinType } from '../domain/vocabulary';
import { type Address, addressFromJson, addressToJson } from './address';

/** What the affiliate stated on the form (the tax id travels separately, sealed). */
export interface TaxFormFields {
  formType: FormType;
  legalName: string;
  country: string;
  tinType: TinType | null;
  taxClassification: TaxClassification | null;
  address: Address | null;
  permanentAddress: Address | null;
  dateOfBirth: string | null;
  chapter3Status: Chapter3Status | null;
  foreignTinNotRequired: boolean;
  foreignTinNotRequiredReason: string | null;
  signatureName: string;
  signatureDate: string;
}

export interface TaxRecord extends TaxFormFields {
  id: string;
  projectId: string;
  user: UserIdentifier;
  /** As stored; an approved W-8 past expires_at may not have been swept yet (see recordStatusAt). */
  status: RecordStatus;
  sealedTaxId: SealedValue | null;
  submittedAt: Date;
  approvedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  revokedReason: string | null;
}

export interface NewTaxRecord {
  id: string;
  projectId: string;
  user: UserIdentifier;
  fields: TaxFormFields;
  sealedTaxId: SealedValue | null;
  now: Date;
}

export interface Actor {
  type: ActorType;
  id: string | null;
}

/** Statuses the review queue filters on; 'approved' and 'expired' account for expiry not yet swept. */
export type RecordStatusFilter = RecordStatus | undefined;

/** Thrown when the user's current record may not be replaced (approved), or a concurrent submission won. */
export class CurrentRecordBlocks extends Error {}

const SYSTEM: Actor = { type: 'system', id: null };

/** A user's current record: not replaced by a later one, and not quarantined (migration 0002). */
const IS_CURRENT = sql<boolean>`superseded_at IS NULL AND quarantined_at IS NULL`;

/** Every column a TaxRecord needs; dates come back as text so no time zone can shift them. */
const RECORD_COLUMNS = sql.raw(
  [
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
    'date_of_birth::text AS date_of_birth',
    'chapter3_status',
    'foreign_tin_not_required',
    'foreign_tin_not_required_reason',
    'signature_name',
    'signature_date::text AS signature_date',
    'submitted_at',
    'approved_at',
    'expires_at',
    'revoked_at',
    'revoked_reason',
  ].join(', '),
);

interface RecordRow {
  id: string;
  project_id: string;
  identifier_type: IdentifierType;
  identifier: string;
  form_type: FormType;
  status: RecordStatus;
  legal_name: string;
  country: string;
  tin_type: TinType | null;
  tax_id_key_id: string | null;
  tax_id_iv: Buffer | null;
  tax_id_ciphertext: Buffer | null;
  tax_id_auth_tag: Buffer | null;
  tax_classification: TaxClassification | null;
  address: AddressJson | null;
  permanent_address: AddressJson | null;
  date_of_birth: string | null;
  chapter3_status: Chapter3Status | null;
  foreign_tin_not_required: boolean;
  foreign_tin_not_required_reason: string | null;
  signature_name: string;
  signature_date: string;
  submitted_at: Date;
  approved_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  revoked_reason: string | null;
}

interface NewEvent {
  recordId: string;
  projectId: string;
  user: UserIdentifier;
  from: string;
  to: RecordStatus;
  reason?: string | null;
  actor: Actor;
  at: Date;
}

/**
 * Tax records and their status history. Every transition is one conditional UPDATE inside a
 * transaction together with its history row: a record changes only from the state the rule
 * allows, whatever runs concurrently, and the unique index keeps one current record per user.
 */
export class TaxRecordRepository {
  constructor(private readonly db: Kysely<TaxDatabase>) {}

  async findCurrent(projectId: string, user: UserIdentifier): Promise<TaxRecord | undefined> {
    const result = await sql<RecordRow>`
      SELECT ${RECORD_COLUMNS} FROM tax_records
      WHERE project_id = ${projectId} AND identifier_type = ${user.identifierType} AND identifier = ${user.identifier}
        AND ${IS_CURRENT}`.execute(this.db);
    const row = result.rows[0];
    return row && toRecord(row);
  }

  /** The current records of many users in one round trip (the affiliate list, the claim gate). */
  async findCurrentForUsers(projectId: string, users: UserIdentifier[]): Promise<TaxRecord[]> {
    if (users.length === 0) return [];
    const result = await sql<RecordRow>`
      SELECT ${RECORD_COLUMNS} FROM tax_records
      WHERE project_id = ${projectId} AND ${IS_CURRENT}
        AND (identifier_type, identifier) IN (
          SELECT * FROM unnest(${users.map((user) => user.identifierType)}::text[], ${users.map((user) => user.identifier)}::text[])
        )`.execute(this.db);
    return result.rows.map(toRecord);
  }

  /**
   * Stores a new current record. A current record that may be replaced (submitted, revoked,
   * expired, or approved but past expires_at) is marked superseded first and kept as history;
   * an approved one that has not expired blocks the insert through the unique index.
   * Returns the status the replaced record had reached (null for a first submission).
   */
  async submit(record: NewTaxRecord): Promise<{ record: TaxRecord; replaced: RecordStatus | null }> {
    const { projectId, user, now } = record;
    try {
      return await this.db.transaction().execute(async (trx) => {
        const superseded = await sql<{ id: string; previous_status: RecordStatus; expires_at: Date | null }>`
          WITH current_record AS (
            SELECT id AS current_id, status AS previous_status FROM tax_records
            WHERE project_id = ${projectId} AND identifier_type = ${user.identifierType} AND identifier = ${user.identifier}
              AND ${IS_CURRENT}
            FOR UPDATE
          )
          UPDATE tax_records
          SET superseded_at = ${now},
              superseded_by = ${record.id},
              status = CASE WHEN previous_status = 'approved' THEN 'expired' ELSE previous_status END,
              expired_at = CASE WHEN previous_status = 'approved' THEN expires_at ELSE expired_at END
          FROM current_record
          WHERE id = current_id
            AND (previous_status IN ('submitted', 'revoked', 'expired') OR (previous_status = 'approved' AND expires_at <= ${now}))
          RETURNING id, previous_status, expires_at`.execute(trx);
        const old = superseded.rows[0];

        await this.insertRecord(trx, record);
        const events: NewEvent[] = [];
        if (old?.previous_status === 'approved') {
          events.push({ recordId: old.id, projectId, user, from: 'approved', to: 'expired', actor: SYSTEM, at: old.expires_at! });
        }
        const replaced = old ? (old.previous_status === 'approved' ? 'expired' : old.previous_status) : null;
        events.push({
          recordId: record.id,
          projectId,
          user,
          from: replaced ?? 'not_submitted',
          to: 'submitted',
          actor: { type: 'affiliate', id: user.identifier },
          at: now,
        });
        await this.insertEvents(trx, events);
        return { record: (await this.findById(trx, record.id))!, replaced };
      });
    } catch (error) {
      if (isUniqueViolation(error, 'tax_records_one_current')) throw new CurrentRecordBlocks();
      throw error;
    }
  }

  /** submitted -> approved, for this record only while it is still current and submitted. */
  async approve(recordId: string, expiresAt: Date | null, actor: Actor, now: Date): Promise<TaxRecord | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const result = await sql<RecordRow>`
        UPDATE tax_records
        SET status = 'approved', approved_at = ${now}, approved_by = ${actor.id}, expires_at = ${expiresAt}
        WHERE id = ${recordId} AND ${IS_CURRENT} AND status = 'submitted'
        RETURNING ${RECORD_COLUMNS}`.execute(trx);
      const row = result.rows[0];
      if (!row) return undefined;
      const record = toRecord(row);
      await this.insertEvents(trx, [
        { recordId, projectId: record.projectId, user: record.user, from: 'submitted', to: 'approved', actor, at: now },
      ]);
      return record;
    });
  }

  /** submitted or approved (and not yet expired) -> revoked. Returns the status it was revoked from. */
  async revoke(
    projectId: string,
    user: UserIdentifier,
    reason: string,
    actor: Actor,
    now: Date,
  ): Promise<{ record: TaxRecord; previousStatus: RecordStatus } | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const result = await sql<RecordRow & { previous_status: RecordStatus }>`
        WITH current_record AS (
          SELECT id AS current_id, status AS previous_status FROM tax_records
          WHERE project_id = ${projectId} AND identifier_type = ${user.identifierType} AND identifier = ${user.identifier}
            AND ${IS_CURRENT}
          FOR UPDATE
        )
        UPDATE tax_records
        SET status = 'revoked', revoked_at = ${now}, revoked_by = ${actor.id}, revoked_reason = ${reason}
        FROM current_record
        WHERE id = current_id
          AND (previous_status = 'submitted' OR (previous_status = 'approved' AND (expires_at IS NULL OR expires_at > ${now})))
        RETURNING ${RECORD_COLUMNS}, previous_status`.execute(trx);
      const row = result.rows[0];
      if (!row) return undefined;
      const record = toRecord(row);
      await this.insertEvents(trx, [
        { recordId: record.id, projectId, user, from: row.previous_status, to: 'revoked', reason, actor, at: now },
      ]);
      return { record, previousStatus: row.previous_status };
    });
  }

  /**
   * approved -> expired for up to `limit` current W-8s whose expires_at is not after `now`.
   * Rows another transaction holds are skipped (the next sweep takes them); the history's unique
   * (record, status) index makes a repeated sweep record nothing twice.
   */
  async expireDue(now: Date, limit: number): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const result = await sql<{ id: string; project_id: string; identifier_type: IdentifierType; identifier: string; expires_at: Date }>`
        WITH due AS (
          SELECT id AS due_id FROM tax_records
          WHERE status = 'approved' AND ${IS_CURRENT} AND expires_at <= ${now} AND form_type IN ('w8ben', 'w8bene')
          ORDER BY expires_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        UPDATE tax_records SET status = 'expired', expired_at = expires_at
        FROM due
        WHERE id = due_id
        RETURNING id, project_id, identifier_type, identifier, expires_at`.execute(trx);
      await this.insertEvents(
        trx,
        result.rows.map((row) => ({
          recordId: row.id,
          projectId: row.project_id,
          user: { identifier: row.identifier, identifierType: row.identifier_type },
          from: 'approved',
          to: 'expired' as const,
          actor: SYSTEM,
          at: row.expires_at,
        })),
      );
      return result.rows.length;
    });
  }

  /** Current records of a project, oldest submission first (the review queue). */
  async list(projectId: string, status: RecordStatusFilter, page: Page, now: Date): Promise<{ records: TaxRecord[]; total: number }> {
    const filter = statusFilter(status, now);
    const [rows, count] = await Promise.all([
      sql<RecordRow>`
        SELECT ${RECORD_COLUMNS} FROM tax_records
        WHERE project_id = ${projectId} AND ${IS_CURRENT} AND ${filter}
        ORDER BY submitted_at, id
        LIMIT ${page.pageSize} OFFSET ${page.offset}`.execute(this.db),
      sql<{ total: string }>`
        SELECT count(*) AS total FROM tax_records
        WHERE project_id = ${projectId} AND ${IS_CURRENT} AND ${filter}`.execute(this.db),
    ]);
    return { records: rows.rows.map(toRecord), total: Number(count.rows[0]?.total ?? 0) };
  }

  private async findById(trx: Transaction<TaxDatabase>, id: string): Promise<TaxRecord | undefined> {
    const result = await sql<RecordRow>`SELECT ${RECORD_COLUMNS} FROM tax_records WHERE id = ${id}`.execute(trx);
    const row = result.rows[0];
    return row && toRecord(row);
  }

  private async insertRecord(trx: Transaction<TaxDatabase>, record: NewTaxRecord): Promise<void> {
    const { fields, sealedTaxId } = record;
    await trx
      .insertInto('tax_records')
      .values({
        id: record.id,
        project_id: record.projectId,
        identifier_type: record.user.identifierType,
        identifier: record.user.identifier,
        form_type: fields.formType,
        status: 'submitted',
        legal_name: fields.legalName,
        country: fields.country,
        tin_type: fields.tinType,
        tax_id_key_id: sealedTaxId?.keyId ?? null,
        tax_id_iv: sealedTaxId?.iv ?? null,
        tax_id_ciphertext: sealedTaxId?.ciphertext ?? null,
        tax_id_auth_tag: sealedTaxId?.authTag ?? null,
        tax_classification: fields.taxClassification,
        address: addressToJson(fields.address),
        permanent_address: addressToJson(fields.permanentAddress),
        date_of_birth: fields.dateOfBirth,
        chapter3_status: fields.chapter3Status,
        foreign_tin_not_required: fields.foreignTinNotRequired,
        foreign_tin_not_required_reason: fields.foreignTinNotRequiredReason,
        signature_name: fields.signatureName,
        signature_date: fields.signatureDate,
        submitted_at: record.now,
        approved_at: null,
        approved_by: null,
        expires_at: null,
        expired_at: null,
        revoked_at: null,
        revoked_by: null,
        revoked_reason: null,
        superseded_at: null,
        superseded_by: null,
      })
      .execute();
  }

  private async insertEvents(trx: Transaction<TaxDatabase>, events: NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    await trx
      .insertInto('tax_status_events')
      .values(
        events.map((event) => ({
          record_id: event.recordId,
          project_id: event.projectId,
          identifier_type: event.user.identifierType,
          identifier: event.user.identifier,
          from_status: event.from,
          to_status: event.to,
          reason: event.reason ?? null,
          actor_type: event.actor.type,
          actor_id: event.actor.id,
          occurred_at: event.at,
        })),
      )
      .onConflict((conflict) => conflict.columns(['record_id', 'to_status']).doNothing())
      .execute();
  }
}

function statusFilter(status: RecordStatusFilter, now: Date) {
  switch (status) {
    case undefined:
      return sql<boolean>`TRUE`;
    case 'approved':
      return sql<boolean>`status = 'approved' AND (expires_at IS NULL OR expires_at > ${now})`;
    case 'expired':
      return sql<boolean>`(status = 'expired' OR (status = 'approved' AND expires_at <= ${now}))`;
    default:
      return sql<boolean>`status = ${status}`;
  }
}

function toRecord(row: RecordRow): TaxRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    user: { identifier: row.identifier, identifierType: row.identifier_type },
    status: row.status,
    formType: row.form_type,
    legalName: row.legal_name,
    country: row.country,
    tinType: row.tin_type,
    sealedTaxId:
      row.tax_id_key_id === null
        ? null
        : { keyId: row.tax_id_key_id, iv: row.tax_id_iv!, ciphertext: row.tax_id_ciphertext!, authTag: row.tax_id_auth_tag! },
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
