import type { UserIdentifier } from '../../rules/identifiers';
import { effectiveStatusOf, recordStatusAt } from '../../rules/tax-status-rule';
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

/** The rule is shared with the agency's projection of these statuses (services/rules/tax-status-rule.ts). */
export { recordStatusAt };

/**
 * What the claim gate reads: the status by the shared rule (effectiveStatusOf: `not_required`
 * whenever the project does not require tax info, `not_submitted` when it does and there is no
 * record), with the record's dates and form.
 */
export function effectiveStatus(user: UserIdentifier, requireTaxInfo: boolean, record: StatusBearing | undefined, now: Date): TaxStatusView {
  if (!record) {
    return {
      user,
      status: effectiveStatusOf(requireTaxInfo, undefined, now),
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
    status: effectiveStatusOf(requireTaxInfo, record, now),
    formType: record.formType,
    submittedAt: record.submittedAt,
    approvedAt: record.approvedAt,
    expiresAt: record.expiresAt,
    revokedReason: status === 'revoked' ? record.revokedReason : null,
  };
}
