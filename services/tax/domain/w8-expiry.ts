import { FORM_TYPES, type FormType, type W8ExpiryRule } from './vocabulary';

/** Which forms expire (W-8s); a form type added to the vocabulary must say. */
const EXPIRES: Record<FormType, boolean> = { w9: false, w8ben: true, w8bene: true };

/** The W-8 forms: the ones the expiry sweep looks at. */
export const W8_FORM_TYPES: readonly FormType[] = FORM_TYPES.filter((formType) => EXPIRES[formType]);

export function isW8(formType: FormType): boolean {
  return EXPIRES[formType];
}

/**
 * The rule of a project that never chose one: the specification's (§3.1, §8.1), an approved W-8
 * expires 3 years after its approval. Projects store their choice only (null: this default), so a
 * change of default reaches every project that made none.
 */
export const DEFAULT_W8_EXPIRY_RULE: W8ExpiryRule = 'three_years_from_approval';

/** The rule in force for a project: its choice, or the default. */
export function w8RuleInForce(chosen: W8ExpiryRule | null): W8ExpiryRule {
  return chosen ?? DEFAULT_W8_EXPIRY_RULE;
}

/** When a W-8 is approved, and what it says about itself. */
export interface W8Dates {
  /** The form's signature date, YYYY-MM-DD. */
  signatureDate: string;
  /** The approval's instant (for a form not approved yet: the instant it would be). */
  approvedAt: Date;
}

/** The same instant `years` later in UTC; a 29 February lands on 28 February, never in March. */
function yearsLater(from: Date, years: number): Date {
  const year = from.getUTCFullYear() + years;
  const month = from.getUTCMonth();
  const lastDayOfMonth = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(from.getUTCDate(), lastDayOfMonth);
  return new Date(Date.UTC(year, month, day, from.getUTCHours(), from.getUTCMinutes(), from.getUTCSeconds(), from.getUTCMilliseconds()));
}

const signedOn = (signatureDate: string) => {
  const [year = NaN, month = NaN, day = NaN] = signatureDate.split('-').map(Number);
  return new Date(Date.UTC(year, month - 1, day));
};

const FIRST_INVALID_INSTANT: Record<W8ExpiryRule, (dates: W8Dates) => Date> = {
  three_years_from_approval: ({ approvedAt }) => yearsLater(approvedAt, 3),
  three_years: ({ signatureDate }) => yearsLater(signedOn(signatureDate), 3),
  irs_calendar: ({ signatureDate }) => new Date(Date.UTC(signedOn(signatureDate).getUTCFullYear() + 4, 0, 1)),
};

/**
 * The first instant a W-8 is no longer valid, in UTC, under each rule:
 * - three_years_from_approval (the default): the third anniversary of its approval, to the
 *   instant (approved on 29 February: 28 February three years on);
 * - three_years: the third anniversary of the signature date, at 00:00 UTC (a form signed on
 *   29 February expires on 28 February, never later than three calendar years);
 * - irs_calendar: 1 January of the fourth year after signing, i.e. valid through 31 December of
 *   the third year after the year of signing.
 * W-9s never expire.
 */
export function w8ExpiresAt(dates: W8Dates, rule: W8ExpiryRule): Date {
  return FIRST_INVALID_INSTANT[rule](dates);
}

export function expiresAtFor(formType: FormType, dates: W8Dates, rule: W8ExpiryRule): Date | null {
  return isW8(formType) ? w8ExpiresAt(dates, rule) : null;
}
