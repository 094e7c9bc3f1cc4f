import { SealedValueError } from '../../platform/crypto/field-cipher';
import { ConflictError } from '../../rules/errors';
import type { UserIdentifier } from '../../rules/identifiers';
import type { Logger } from '../../platform/logger';
import type { TaxFormFields, TaxRecord } from './tax-record';
import { recordStatusAt } from './tax-status';
import { formatTin, maskTin } from './tin-rules';
import type { TinVault } from './tin-vault';
import type { RecordStatus } from './vocabulary';

/** A record as it may be shown outside the admin tax-status endpoint: the tax id masked. */
export interface TaxInfoView extends TaxFormFields {
  id: string;
  user: UserIdentifier;
  status: RecordStatus;
  taxIdNumberMasked: string | null;
  /** The stored tax id does not decrypt (taxIdNumberMasked is then null): see taxInfoUnreadable. */
  unreadable: boolean;
  submittedAt: Date;
  approvedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  revokedReason: string | null;
}

/**
 * A record whose tax id does not decrypt (sealed under another binding, or with a key that is no
 * longer configured) is shown as unreadable in lists; it never fails a whole page.
 */
export function maskedView(record: TaxRecord, vault: TinVault, now: Date): TaxInfoView {
  const { sealedTaxId: _sealed, projectId: _projectId, ...rest } = record;
  const opened = openTin(record, vault);
  return {
    ...rest,
    status: recordStatusAt(record, now),
    taxIdNumberMasked: opened.unreadable || opened.tin === null ? null : maskTin(opened.tin),
    unreadable: opened.unreadable,
  };
}

/** The view of the one record a read is about: an unreadable one is refused, clearly, on its own. */
export function readableView(record: TaxRecord, vault: TinVault, now: Date, logger: Logger): TaxInfoView {
  const view = maskedView(record, vault, now);
  if (view.unreadable) {
    warnUnreadable(logger, record);
    throw taxInfoUnreadable(record.id);
  }
  return view;
}

/** For the operator: which record to repair or quarantine (never a stack: nothing failed in the code). */
export function warnUnreadable(logger: Logger, record: TaxRecord): void {
  logger.warn(
    { project_id: record.projectId, tax_record_id: record.id, key_id: record.sealedTaxId?.keyId },
    'tax record cannot be decrypted (another binding, or a key no longer configured); it reads as unreadable',
  );
}

/** The full tax id as people write it (123-45-6789, 12-3456789), or null when the form has none. */
export function unmaskedTin(record: TaxRecord, vault: TinVault): string | null {
  const opened = openTin(record, vault);
  if (opened.unreadable) throw taxInfoUnreadable(record.id);
  const { tin } = opened;
  return tin === null || record.tinType === null ? tin : formatTin(tin, record.tinType);
}

/** 409: the record exists but its tax id cannot be decrypted; an operator repairs or quarantines it (migration 0002). */
export function taxInfoUnreadable(recordId: string): ConflictError {
  return new ConflictError(
    'TAX_INFO_UNREADABLE',
    `the stored tax information (record ${recordId}) cannot be decrypted, so it cannot be shown; an operator must repair it, ` +
      'or the affiliate can submit the form again',
  );
}

function openTin(record: TaxRecord, vault: TinVault): { tin: string | null; unreadable: false } | { tin: null; unreadable: true } {
  if (!record.sealedTaxId) return { tin: null, unreadable: false };
  try {
    return {
      tin: vault.openRecordTin(record.sealedTaxId, { projectId: record.projectId, user: record.user, recordId: record.id }),
      unreadable: false,
    };
  } catch (error) {
    if (error instanceof SealedValueError) return { tin: null, unreadable: true };
    throw error;
  }
}
