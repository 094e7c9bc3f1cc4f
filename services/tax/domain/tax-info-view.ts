import type { UserIdentifier } from '../../common/identifiers';
import type { RecordStatus } from '../database';
import type { TaxFormFields, TaxRecord } from '../repositories/tax-record.repository';
import { recordStatusAt } from './tax-status';
import { formatTin, maskTin } from './tin-rules';
import type { TinVault } from './tin-vault';

/** A record as it may be shown outside the admin tax-status endpoint: the tax id masked. */
export interface TaxInfoView extends TaxFormFields {
  id: string;
  user: UserIdentifier;
  status: RecordStatus;
  taxIdMasked: string | null;
  submittedAt: Date;
  approvedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  revokedReason: string | null;
}

export function maskedView(record: TaxRecord, vault: TinVault, now: Date): TaxInfoView {
  const { sealedTaxId: _sealed, projectId: _projectId, ...rest } = record;
  const tin = openTin(record, vault);
  return { ...rest, status: recordStatusAt(record, now), taxIdMasked: tin === null ? null : maskTin(tin) };
}

/** The full tax id as people write it (123-45-6789, 12-3456789), or null when the form has none. */
export function unmaskedTin(record: TaxRecord, vault: TinVault): string | null {
  const tin = openTin(record, vault);
  return tin === null || record.tinType === null ? tin : formatTin(tin, record.tinType);
}

function openTin(record: TaxRecord, vault: TinVault): string | null {
  if (!record.sealedTaxId) return null;
  return vault.openRecordTin(record.sealedTaxId, { projectId: record.projectId, user: record.user, recordId: record.id });
}
