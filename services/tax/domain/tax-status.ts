import type { UserIdentifier } from '../../common/identifiers';
import type { EffectiveTaxStatus, FormType, RecordStatus } from './vocabulary';

/** The affiliate-facing status (specification §2.7). */
export interface TaxStatusView {
  user: UserIdentifier;
  status: EffectiveTaxStatus;
  formType: FormType | null;
  submittedAt: Date | null;
  approvedAt: Date | null;
  expiresAt: Date | null;
  revokedReason: string | null;
}

/** What a record's status is read from (the batch read selects only these). */
export interface StatusBearing {
  status: RecordStatus;
  formType: FormType;
  submittedAt: Date;
  approvedAt: Date | null;
  expiresAt: Date | null;
  revokedReason: string | null;
}

/**
 * A record's status as of `now`: an approved W-8 whose expires_at has passed is expired even
 * before the sweep job has written that down. Expiry is inclusive: at expires_at it has expired.
 */
export function recordStatusAt(record: Pick<StatusBearing, 'status' | 'expiresAt'>, now: Date): RecordStatus {
  if (record.status === 'approved' && record.expiresAt !== null && record.expiresAt.getTime() <= now.getTime()) return 'expired';
  return record.status;
}

/**
 * What the claim gate and the affiliate list read. `not_required` whenever the project does not
 * require tax info (whatever was submitted); `not_submitted` when it does and there is no record.
 */
export function effectiveStatus(
  user: UserIdentifier,
  requireTaxInfo: boolean,
  record: StatusBearing | undefined,
  now: Date,
): TaxStatusView {
  if (!record) {
    return {
      user,
      status: requireTaxInfo ? 'not_submitted' : 'not_required',
      formType: null,
      submittedAt: null,
      approvedAt: null,
      expiresAt: null,
      revokedReason: null,
    };
  }
  const status = recordStatusAt(record, now);
  return {
    user,
    status: requireTaxInfo ? status : 'not_required',
    formType: record.formType,
    submittedAt: record.submittedAt,
    approvedAt: record.approvedAt,
    expiresAt: record.expiresAt,
    revokedReason: status === 'revoked' ? record.revokedReason : null,
  };
}
