import { FORM_TYPES, type FormType, type W8ExpiryRule } from './vocabulary';

/** Which forms expire (W-8s); a form type added to the vocabulary must say. */
const EXPIRES: Record<FormType, boolean> = { w9: false, w8ben: true, w8bene: true };

/** The W-8 forms: the ones the expiry sweep looks at. */
export const W8_FORM_TYPES: readonly FormType[] = FORM_TYPES.filter((formType) => EXPIRES[formType]);

export function isW8(formType: FormType): boolean {
  return EXPIRES[formType];
}

type Ymd = [year: number, month: number, day: number];

const FIRST_INVALID_INSTANT: Record<W8ExpiryRule, (signed: Ymd) => Date> = {
  three_years: ([year, month, day]) => {
    const lastDayOfMonth = new Date(Date.UTC(year + 3, month, 0)).getUTCDate();
    return new Date(Date.UTC(year + 3, month - 1, Math.min(day, lastDayOfMonth)));
  },
  irs_calendar: ([year]) => new Date(Date.UTC(year + 4, 0, 1)),
};

/**
 * The first instant a W-8 signed on `signatureDate` (YYYY-MM-DD) is no longer valid, in UTC.
 * - three_years: the third anniversary of the signature date (a form signed on 29 February
 *   expires on 28 February, never later than three calendar years);
 * - irs_calendar: 1 January of the fourth year after signing, i.e. valid through 31 December of
 *   the third year after the year of signing.
 * W-9s never expire.
 */
export function w8ExpiresAt(signatureDate: string, rule: W8ExpiryRule): Date {
  const [year = NaN, month = NaN, day = NaN] = signatureDate.split('-').map(Number);
  return FIRST_INVALID_INSTANT[rule]([year, month, day]);
}

export function expiresAtFor(formType: FormType, signatureDate: string, rule: W8ExpiryRule): Date | null {
  return isW8(formType) ? w8ExpiresAt(signatureDate, rule) : null;
}
