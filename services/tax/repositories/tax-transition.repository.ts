import type { Kysely, Transaction } from 'kysely';
import { isUniqueViolation } from '../../platform/db/errors';
import type { OutboxWaker } from '../../platform/outbox/relay';
import type { UserIdentifier } from '../../rules/identifiers';
import type { TaxDatabase } from '../database';
import { type Actor, CurrentRecordBlocks, type NewTaxRecord, SYSTEM_ACTOR, type TaxRecord } from '../domain/tax-record';
import type { FormType, RecordStatus } from '../domain/vocabulary';
import { addressToJson } from './address-column';
import { currentRecordOf, isCurrent, RECORD_COLUMNS, toTaxRecord } from './tax-record-row';
import { recordStatusEvents, type StatusEvent } from './tax-status-history.repository';

/** The statuses a current record may be replaced from by a new submission (approved only once it has expired). */
const REPLACEABLE: readonly RecordStatus[] = ['submitted', 'revoked', 'expired'];

/**
 * The state machine's writes. Every transition is one conditional UPDATE inside a transaction
 * together with its history row: a record changes only from the state the rule allows, whatever
 * runs concurrently, and the unique index keeps one current record per user.
 */
export class TaxTransitionRepository {
  constructor(
    private readonly db: Kysely<TaxDatabase>,
    /** Woken after each commit that announced status changes (their events leave at once); none where nothing relays (migrations, tests). */
    private readonly outbox: OutboxWaker = { wake: () => undefined },
  ) {}

  /** Runs one transition's transaction, then wakes the relay when it announced a change. */
  private async announcing<T>(work: (trx: Transaction<TaxDatabase>, announced: { count: number }) => Promise<T>): Promise<T> {
    const announced = { count: 0 };
    const result = await this.db.transaction().execute((trx) => work(trx, announced));
    if (announced.count > 0) this.outbox.wake();
    return result;
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
      return await this.announcing(async (trx, announced) => {
        const old = await updateCurrentRecord(trx, projectId, user)
          .set((eb) => ({
            superseded_at: now,
            superseded_by: record.id,
            // An approved record is only replaceable once it has expired: it is written down as expired.
            status: eb
              .case()
              .when('previous_status', '=', 'approved')
              .then('expired' as const)
              .else(eb.ref('previous_status'))
              .end(),
            expired_at: eb.case().when('previous_status', '=', 'approved').then(eb.ref('expires_at')).else(eb.ref('expired_at')).end(),
          }))
          .where((eb) =>
            eb.or([eb('previous_status', 'in', REPLACEABLE), eb.and([eb('previous_status', '=', 'approved'), eb('expires_at', '<=', now)])]),
          )
          .returning(['id', 'previous_status', 'expires_at'])
          .executeTakeFirst();

        const stored = await insertRecord(trx, record);
        const events: StatusEvent[] = [];
        if (old?.previous_status === 'approved' && old.expires_at !== null) {
          events.push({
            recordId: old.id,
            projectId,
            user,
            from: 'approved',
            to: 'expired',
            actor: SYSTEM_ACTOR,
            at: old.expires_at,
            expiresAt: old.expires_at,
          });
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
          expiresAt: null,
        });
        announced.count += await recordStatusEvents(trx, events, now);
        return { record: stored, replaced };
      });
    } catch (error) {
      if (isUniqueViolation(error, 'tax_records_one_current')) throw new CurrentRecordBlocks();
      throw error;
    }
  }

  /** submitted -> approved, for this record only while it is still current and submitted. */
  async approve(recordId: string, expiresAt: Date | null, actor: Actor, now: Date): Promise<TaxRecord | undefined> {
    return this.announcing(async (trx, announced) => {
      const row = await trx
        .updateTable('tax_records')
        .set({ status: 'approved', approved_at: now, approved_by: actor.id, expires_at: expiresAt })
        .where('id', '=', recordId)
        .where(isCurrent)
        .where('status', '=', 'submitted')
        .returning(RECORD_COLUMNS)
        .executeTakeFirst();
      if (!row) return undefined;
      const record = toTaxRecord(row);
      announced.count += await recordStatusEvents(
        trx,
        [{ recordId, projectId: record.projectId, user: record.user, from: 'submitted', to: 'approved', actor, at: now, expiresAt }],
        now,
      );
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
    return this.announcing(async (trx, announced) => {
      const row = await updateCurrentRecord(trx, projectId, user)
        .set({ status: 'revoked', revoked_at: now, revoked_by: actor.id, revoked_reason: reason })
        .where((eb) =>
          eb.or([
            eb('previous_status', '=', 'submitted'),
            eb.and([eb('previous_status', '=', 'approved'), eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)])]),
          ]),
        )
        .returning([...RECORD_COLUMNS, 'previous_status'])
        .executeTakeFirst();
      if (!row) return undefined;
      const record = toTaxRecord(row);
      announced.count += await recordStatusEvents(
        trx,
        [{ recordId: record.id, projectId, user, from: row.previous_status, to: 'revoked', reason, actor, at: now, expiresAt: record.expiresAt }],
        now,
      );
      return { record, previousStatus: row.previous_status };
    });
  }

  /**
   * approved -> expired for up to `limit` current records of the given (W-8) forms whose expires_at
   * is not after `now`. Rows another transaction holds are skipped (the next sweep takes them).
   */
  async expireDue(formTypes: readonly FormType[], now: Date, limit: number): Promise<number> {
    if (formTypes.length === 0) return 0;
    return this.announcing(async (trx, announced) => {
      const rows = await trx
        .with('due', (db) =>
          db
            .selectFrom('tax_records')
            .select('id as due_id')
            .where('status', '=', 'approved')
            .where(isCurrent)
            .where('expires_at', '<=', now)
            .where('form_type', 'in', formTypes)
            .orderBy('expires_at')
            .limit(limit)
            .forUpdate()
            .skipLocked(),
        )
        .updateTable('tax_records')
        .from('due')
        .set((eb) => ({ status: 'expired', expired_at: eb.ref('expires_at') }))
        .whereRef('id', '=', 'due_id')
        .returning(['id', 'project_id', 'identifier_type', 'identifier', 'expires_at'])
        .execute();
      announced.count += await recordStatusEvents(
        trx,
        rows.flatMap((row) =>
          row.expires_at === null
            ? []
            : [
                {
                  recordId: row.id,
                  projectId: row.project_id,
                  user: { identifier: row.identifier, identifierType: row.identifier_type },
                  from: 'approved' as const,
                  to: 'expired' as const,
                  actor: SYSTEM_ACTOR,
                  at: row.expires_at,
                  expiresAt: row.expires_at,
                },
              ],
        ),
        now,
      );
      return rows.length;
    });
  }
}

/**
 * An UPDATE of the user's current record that locks it first (FOR UPDATE, so concurrent changes
 * take turns), with the status it had before readable as `previous_status` for the conditions.
 */
function updateCurrentRecord(trx: Transaction<TaxDatabase>, projectId: string, user: UserIdentifier) {
  return trx
    .with('current_record', (db) =>
      db.selectFrom('tax_records').select(['id as current_id', 'status as previous_status']).where(currentRecordOf(projectId, user)).forUpdate(),
    )
    .updateTable('tax_records')
    .from('current_record')
    .whereRef('id', '=', 'current_id');
}

async function insertRecord(trx: Transaction<TaxDatabase>, record: NewTaxRecord): Promise<TaxRecord> {
  const { fields, sealedTaxId } = record;
  const row = await trx
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
    .returning(RECORD_COLUMNS)
    .executeTakeFirstOrThrow();
  return toTaxRecord(row);
}
