import type { FormType, W8ExpiryRule } from '../database';

export const W8_EXPIRY_RULES: readonly W8ExpiryRule[] = ['three_years', 'irs_calendar'];

export function isW8(formType: FormType): boolean {
  return formType === 'w8ben' || formType === 'w8bene';
}

/**
 * The first instant a W-8 signed on `signatureDate` (YYYY-MM-DD) is no longer valid, in UTC.
 * - three_years: the third anniversary of the signature date (a form signed on 29 February
 *   expires on 28 February, never later than three calendar years);
 * - irs_calendar: 1 January of the fourth year after signing, i.e. valid through 31 December of
 *   the third year after the year of signing.
 * W-9s never expire.
 */
export function w8ExpiresAt(signatureDate: string, rule: W8ExpiryRule): Date {
  const [year, month, day] = signatureDate.split('-').map(Number) as [number, number, number];
  if (rule === 'irs_calendar') return new Date(Date.UTC(year + 4, 0, 1));
  const lastDayOfMonth = new Date(Date.UTC(year + 3, month, 0)).getUTCDate();
  return new Date(Date.UTC(year + 3, month - 1, Math.min(day, lastDayOfMonth)));
}

export function expiresAtFor(formType: FormType, signatureDate: string, rule: W8ExpiryRule): Date | null {
  return isW8(formType) ? w8ExpiresAt(signatureDate, rule) : null;
}
