import { TAX_TEXT_LIMITS } from '../../rules/contract-limits';
import { isCountryCode } from '../../rules/countries';
import { identifierViolations } from '../../rules/identifiers';
import { type Checked, checkText } from '../../rules/text-fields';
import type { Address } from './address';

/** Field rules shared by tax forms and tax settings; field names are the API's (snake_case). */
export const LIMITS = TAX_TEXT_LIMITS;

export interface AddressInput {
  line1: string;
  line2?: string | undefined;
  city: string;
  region?: string | undefined;
  postalCode: string;
  country: string;
}

export { type Checked, checkText };

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const US_ZIP = /^\d{5}(?:-\d{4})?$/;

/** Optional text: absent or blank is null; otherwise as checkText. */
export function checkOptionalText(value: string | undefined | null, field: string, maxLength: number): Checked<string | null> {
  if (value === undefined || value === null || value.trim() === '') return { value: null, violations: [] };
  return checkText(value, field, maxLength);
}

export function checkCountry(value: string | undefined, field: string): Checked<string> {
  const code = (value ?? '').trim().toUpperCase();
  if (!isCountryCode(code)) return { value: code, violations: [{ field, reason: 'must be an ISO 3166-1 alpha-2 country code, e.g. US or DE' }] };
  return { value: code, violations: [] };
}

/** A real calendar date written YYYY-MM-DD. */
export function checkDate(value: string | undefined, field: string): Checked<string> {
  const match = ISO_DATE.exec(value ?? '');
  if (!match) return { value: '', violations: [{ field, reason: 'must be a date written YYYY-MM-DD' }] };
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (year < 1900 || date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    return { value: '', violations: [{ field, reason: 'is not a calendar date (YYYY-MM-DD, from 1900)' }] };
  }
  return { value: match[0], violations: [] };
}

/** Today's date in UTC, as YYYY-MM-DD: "the future" for dates is judged against it. */
export function utcDate(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** A date that is not after `today` (both YYYY-MM-DD, so they compare as strings). */
export function checkPastOrToday(value: string | undefined, field: string, today: string): Checked<string> {
  const date = checkDate(value, field);
  if (date.violations.length > 0) return date;
  if (date.value > today) return { value: date.value, violations: [{ field, reason: `must not be in the future (today is ${today} UTC)` }] };
  return date;
}

/** line1, city, postal_code and country are required; a US address also needs its state (region) and a ZIP code. */
export function checkAddress(input: AddressInput | undefined, field: string): Checked<Address | null> {
  if (!input) return { value: null, violations: [{ field, reason: 'is required' }] };
  const line1 = checkText(input.line1, `${field}.line1`, LIMITS.addressLineLength);
  const line2 = checkOptionalText(input.line2, `${field}.line2`, LIMITS.addressLineLength);
  const city = checkText(input.city, `${field}.city`, LIMITS.cityLength);
  const region = checkOptionalText(input.region, `${field}.region`, LIMITS.regionLength);
  const postalCode = checkText(input.postalCode, `${field}.postal_code`, LIMITS.postalCodeLength);
  const country = checkCountry(input.country, `${field}.country`);
  const violations = [line1, line2, city, region, postalCode, country].flatMap((part) => part.violations);
  if (country.value === 'US') {
    if (region.value === null && region.violations.length === 0)
      violations.push({ field: `${field}.region`, reason: 'is required for a US address (the state)' });
    if (postalCode.violations.length === 0 && !US_ZIP.test(postalCode.value)) {
      violations.push({ field: `${field}.postal_code`, reason: 'must be a US ZIP code (NNNNN or NNNNN-NNNN)' });
    }
  }
  return {
    value: { line1: line1.value, line2: line2.value, city: city.value, region: region.value, postalCode: postalCode.value, country: country.value },
    violations,
  };
}

export function checkEmail(value: string, field: string): Checked<string> {
  const trimmed = value.trim();
  if (identifierViolations(trimmed, 'email').length > 0) return { value: trimmed, violations: [{ field, reason: 'must be an email address' }] };
  return { value: trimmed.toLowerCase(), violations: [] };
}

export function checkOneOf<T extends string>(value: string | undefined, field: string, allowed: readonly T[]): Checked<T | null> {
  if (value === undefined || value === '') return { value: null, violations: [{ field, reason: `is required: one of ${allowed.join(', ')}` }] };
  const known = allowed.find((item) => item === value);
  if (known === undefined) return { value: null, violations: [{ field, reason: `must be one of ${allowed.join(', ')}` }] };
  return { value: known, violations: [] };
}
