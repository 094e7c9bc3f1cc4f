import { isCountryCode } from '../../rules/countries';
import { AGENCY_TEXT_LIMITS, REFERRAL_CODE_RULES } from '../../rules/contract-limits';
import { type FieldViolation, invalidFields, NotFoundError } from '../../rules/errors';
import { type Checked, checkText } from '../../rules/text-fields';

/** A referral code: 3 to 32 of [A-Za-z0-9_-], kept as written (matching ignores letter case). */
export function checkCode(value: string, field = 'code'): Checked<string> {
  const { minLength, maxLength, pattern } = REFERRAL_CODE_RULES;
  if (value.length < minLength || value.length > maxLength) {
    return { value, violations: [{ field, reason: `must be ${minLength} to ${maxLength} characters` }] };
  }
  if (!pattern.test(value)) return { value, violations: [{ field, reason: 'may hold only letters, digits, _ and -' }] };
  return { value, violations: [] };
}

export function checkName(value: string | undefined): Checked<string> {
  return checkText(value, 'name', AGENCY_TEXT_LIMITS.nameLength);
}

export function checkReason(value: string | undefined): Checked<string> {
  return checkText(value, 'reason', AGENCY_TEXT_LIMITS.reasonLength);
}

/** ISO 3166-1 alpha-2, any letter case in, upper case stored; undefined and null stay unset. */
export function checkRegion(value: string | null | undefined): Checked<string | null> {
  if (value === undefined || value === null) return { value: null, violations: [] };
  const upper = value.trim().toUpperCase();
  if (!isCountryCode(upper))
    return { value: upper, violations: [{ field: 'region', reason: 'must be an ISO 3166-1 alpha-2 country code, e.g. US, DE, BR' }] };
  return { value: upper, violations: [] };
}

/** Every violation of several checks at once, or their values. */
export function throwIfInvalid(...checks: Array<{ violations: FieldViolation[] }>): void {
  const violations = checks.flatMap((check) => check.violations);
  if (violations.length > 0) throw invalidFields(violations);
}

export function affiliateNotFound(): NotFoundError {
  return new NotFoundError('AFFILIATE_NOT_FOUND', 'this user is not an affiliate of this project');
}
