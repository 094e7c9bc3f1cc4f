import type { EffectiveTaxStatus as EffectiveTaxStatusEnum, RecordStatus as RecordStatusEnum } from '../../gen/referral/tax/v1/enums';
import type { EnumName } from './enums';

/**
 * The rule that turns a user's current tax record into the status a reader sees, in one place for
 * both services that answer it: the tax service (its own records) and the agency service (its
 * projection of them, fed by the tax service's events, behind the affiliate list). Pure: the
 * record's status and expires_at, the project's require_tax_info, and "now".
 */
export type TaxRecordStatus = EnumName<typeof RecordStatusEnum>;
export type EffectiveTaxStatusName = EnumName<typeof EffectiveTaxStatusEnum>;

/**
 * A record's status as of `now`: an approved W-8 whose expires_at has passed is expired even
 * before the sweep job has written that down. Expiry is inclusive: at expires_at it has expired.
 */
export function recordStatusAt(record: { status: TaxRecordStatus; expiresAt: Date | null }, now: Date): TaxRecordStatus {
  if (record.status === 'approved' && record.expiresAt !== null && record.expiresAt.getTime() <= now.getTime()) return 'expired';
  return record.status;
}

/**
 * What the claim gate and the affiliate list read. `not_required` whenever the project does not
 * require tax info (whatever was submitted); `not_submitted` when it does and there is no record.
 */
export function effectiveStatusOf(
  requireTaxInfo: boolean,
  record: { status: TaxRecordStatus; expiresAt: Date | null } | undefined,
  now: Date,
): EffectiveTaxStatusName {
  if (!requireTaxInfo) return 'not_required';
  return record ? recordStatusAt(record, now) : 'not_submitted';
}
