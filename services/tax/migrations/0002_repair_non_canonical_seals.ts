import { type Kysely, type Migration, sql } from 'kysely';
import type { SealedValue } from '../../platform/crypto/field-cipher';
import type { UserIdentifier } from '../../rules/identifiers';
import type { Logger } from '../../platform/logger';
import { canonicalBinding, judgeSeal } from '../domain/seal-repair';
import type { TinVault } from '../domain/tin-vault';

const BATCH = 500;
/** Record ids named in the summary log line; the rest are found with the query in the README. */
const MAX_LOGGED_IDS = 100;

export const QUARANTINE_REASONS = {
  unreadable: 'the tax id opens under no spelling of its project, user and record id',
  duplicate: 'another current record exists for the canonical spelling of this user',
};

interface Row {
  id: string;
  project_id: string;
  identifier_type: string;
  identifier: string;
  current: boolean;
  tax_id_key_id: string | null;
  tax_id_iv: Buffer | null;
  tax_id_ciphertext: Buffer | null;
  tax_id_auth_tag: Buffer | null;
}

interface Outcome {
  repaired: string[];
  quarantined: string[];
  keyMissing: string[];
}

/**
 * Repairs or quarantines tax records sealed with an identifier that was not canonical. Before the
 * gateway made identifiers canonical, a tax form posted under an uppercase project id was sealed
 * with that spelling in its associated data while the row stored the canonical id: it could
 * never be decrypted again, and failed every read of it (and the project's whole review queue).
 *
 * 1. A record can now be quarantined (`quarantined_at`, `quarantine_reason`): it is nobody's
 *    current record any more (reads skip it; the one-current-record index ignores it, so the
 *    affiliate can submit again), and it stays in the table for an operator.
 * 2. Every record is judged (domain/seal-repair.ts). One whose tax id opens only under an earlier
 *    spelling is re-sealed under the canonical binding with the active key, and its identifier
 *    written canonically; one whose tax id opens under no spelling is quarantined; one sealed
 *    with a key that is not configured is left alone (nothing can be said without the key).
 */
export function repairNonCanonicalSeals(vault: TinVault, logger: Logger): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`
        ALTER TABLE tax_records
          ADD COLUMN quarantined_at timestamptz,
          ADD COLUMN quarantine_reason text,
          ADD CONSTRAINT tax_records_quarantine_reason CHECK ((quarantined_at IS NULL) = (quarantine_reason IS NULL))`.execute(db);
      await sql`DROP INDEX tax_records_one_current`.execute(db);
      await sql`
        CREATE UNIQUE INDEX tax_records_one_current ON tax_records (project_id, identifier_type, identifier)
        WHERE superseded_at IS NULL AND quarantined_at IS NULL`.execute(db);
      await sql`CREATE INDEX tax_records_quarantined_idx ON tax_records (quarantined_at) WHERE quarantined_at IS NOT NULL`.execute(db);

      const outcome: Outcome = { repaired: [], quarantined: [], keyMissing: [] };
      let after = '00000000-0000-0000-0000-000000000000';
      for (;;) {
        const { rows } = await sql<Row>`
          SELECT id, project_id, identifier_type, identifier, superseded_at IS NULL AS current,
                 tax_id_key_id, tax_id_iv, tax_id_ciphertext, tax_id_auth_tag
          FROM tax_records WHERE id > ${after} ORDER BY id LIMIT ${BATCH}`.execute(db);
        for (const row of rows) await judge(db, vault, row, outcome);
        if (rows.length < BATCH) break;
        after = rows[rows.length - 1]!.id;
      }

      const summary = {
        repaired: outcome.repaired.length,
        quarantined: outcome.quarantined.length,
        key_missing: outcome.keyMissing.length,
        repaired_ids: outcome.repaired.slice(0, MAX_LOGGED_IDS),
        quarantined_ids: outcome.quarantined.slice(0, MAX_LOGGED_IDS),
        key_missing_ids: outcome.keyMissing.slice(0, MAX_LOGGED_IDS),
      };
      const changed = summary.repaired + summary.quarantined + summary.key_missing > 0;
      if (changed) logger.warn(summary, 'tax records sealed under non-canonical ids: repaired or quarantined');
      else logger.info('every tax record is sealed under canonical ids');
    },
  };
}

async function judge(db: Kysely<unknown>, vault: TinVault, row: Row, outcome: Outcome): Promise<void> {
  const stored = {
    projectId: row.project_id,
    user: { identifier: row.identifier, identifierType: row.identifier_type } as UserIdentifier,
    recordId: row.id,
  };
  const canonical = canonicalBinding(stored);
  const renamed = canonical.user.identifier !== row.identifier;
  const sealed: SealedValue | null =
    row.tax_id_key_id === null
      ? null
      : { keyId: row.tax_id_key_id, iv: row.tax_id_iv!, ciphertext: row.tax_id_ciphertext!, authTag: row.tax_id_auth_tag! };
  const verdict = sealed ? judgeSeal(vault, sealed, stored) : ({ kind: 'sound' } as const);

  if (verdict.kind === 'key_missing') {
    outcome.keyMissing.push(row.id);
    return;
  }
  if (verdict.kind === 'unreadable') {
    await quarantine(db, row.id, QUARANTINE_REASONS.unreadable);
    outcome.quarantined.push(row.id);
    return;
  }
  if (verdict.kind === 'sound' && !renamed) return;

  if (renamed && row.current && (await holdsCurrentRecord(db, row, canonical.user.identifier))) {
    await quarantine(db, row.id, QUARANTINE_REASONS.duplicate);
    outcome.quarantined.push(row.id);
    return;
  }
  if (verdict.kind === 'repairable') {
    const resealed = vault.sealRecordTin(verdict.tin, canonical);
    await sql`
      UPDATE tax_records SET tax_id_key_id = ${resealed.keyId}, tax_id_iv = ${resealed.iv},
        tax_id_ciphertext = ${resealed.ciphertext}, tax_id_auth_tag = ${resealed.authTag}
      WHERE id = ${row.id}`.execute(db);
  }
  if (renamed) {
    const identifier = canonical.user.identifier;
    await sql`UPDATE tax_records SET identifier = ${identifier} WHERE id = ${row.id}`.execute(db);
    await sql`UPDATE tax_status_events SET identifier = ${identifier} WHERE record_id = ${row.id}`.execute(db);
    await sql`UPDATE tax_audit_log SET identifier = ${identifier} WHERE record_id = ${row.id}`.execute(db);
  }
  outcome.repaired.push(row.id);
}

async function holdsCurrentRecord(db: Kysely<unknown>, row: Row, identifier: string): Promise<boolean> {
  const { rows } = await sql`
    SELECT 1 FROM tax_records
    WHERE project_id = ${row.project_id} AND identifier_type = ${row.identifier_type} AND identifier = ${identifier}
      AND superseded_at IS NULL AND quarantined_at IS NULL AND id <> ${row.id}`.execute(db);
  return rows.length > 0;
}

async function quarantine(db: Kysely<unknown>, id: string, reason: string): Promise<void> {
  await sql`UPDATE tax_records SET quarantined_at = now(), quarantine_reason = ${reason} WHERE id = ${id}`.execute(db);
}
