import { type FieldViolation, invalidFields } from '../../rules/errors';
import type { TaxFormFields } from './tax-record';
import {
  type AddressInput,
  checkAddress,
  checkCountry,
  checkOneOf,
  checkOptionalText,
  checkPastOrToday,
  checkText,
  LIMITS,
  utcDate,
} from './form-fields';
import { checkEin, checkForeignTin, checkSsn } from './tin-rules';
import {
  CHAPTER3_STATUSES,
  FORM_TYPES,
  type FormType,
  TAX_CLASSIFICATIONS,
  type TaxClassification,
  type W8ExpiryRule,
  W9_TIN_TYPES,
} from './vocabulary';
import { w8ExpiresAt } from './w8-expiry';

/** Which W-9 classifications exist only as entities with an EIN; individuals, LLCs and "other" may use either. */
const EIN_ONLY: Record<TaxClassification, boolean> = {
  individual: false,
  c_corporation: true,
  s_corporation: true,
  partnership: true,
  trust_estate: true,
  llc: false,
  other: false,
};

/** A form as it arrives (camelCase of the proto TaxForm); anything may be missing or wrong. */
export interface TaxFormInput {
  formType?: string | undefined;
  legalName: string;
  country: string;
  taxIdNumber?: string | undefined;
  signatureName: string;
  signatureDate: string;
  taxClassification?: string | undefined;
  tinType?: string | undefined;
  address?: AddressInput | undefined;
  dateOfBirth?: string | undefined;
  foreignTinNotRequired?: boolean | undefined;
  permanentAddress?: AddressInput | undefined;
  chapter3Status?: string | undefined;
  foreignTinNotRequiredReason?: string | undefined;
}

export interface ValidatedTaxForm {
  fields: TaxFormFields;
  /** The normalised tax id, to be sealed; null when the form legitimately carries none. */
  taxIdNumber: string | null;
}

/** Optional fields and the forms they belong to; any other form refuses them. */
const FIELDS_BY_FORM: Record<FormType, ReadonlySet<keyof TaxFormInput>> = {
  w9: new Set(['taxClassification', 'tinType', 'address']),
  w8ben: new Set(['dateOfBirth', 'foreignTinNotRequired', 'permanentAddress']),
  w8bene: new Set(['chapter3Status', 'foreignTinNotRequiredReason', 'permanentAddress']),
};
const FORM_SPECIFIC_FIELDS: Record<string, string> = {
  taxClassification: 'tax_classification',
  tinType: 'tin_type',
  address: 'address',
  dateOfBirth: 'date_of_birth',
  foreignTinNotRequired: 'foreign_tin_not_required',
  permanentAddress: 'permanent_address',
  chapter3Status: 'chapter3_status',
  foreignTinNotRequiredReason: 'foreign_tin_not_required_reason',
};

/**
 * Checks a whole form against the IRS form it claims to be and throws one 400 listing every
 * problem, so nothing is stored unless all of it holds. `now` decides what "the future" is;
 * the expiry rule refuses a W-8 that would already have expired.
 */
export function validateTaxForm(input: TaxFormInput, now: Date, w8Rule: W8ExpiryRule): ValidatedTaxForm {
  const formType = checkOneOf(input.formType, 'form_type', FORM_TYPES);
  if (formType.value === null) throw invalidFields(formType.violations);
  const form = formType.value;
  const today = utcDate(now);

  const violations: FieldViolation[] = [];
  for (const [key, field] of Object.entries(FORM_SPECIFIC_FIELDS)) {
    if (input[key as keyof TaxFormInput] !== undefined && !FIELDS_BY_FORM[form].has(key as keyof TaxFormInput)) {
      violations.push({ field, reason: `is not a field of the ${form} form` });
    }
  }

  const legalName = checkText(input.legalName, 'legal_name', LIMITS.nameLength);
  const country = checkCountry(input.country, 'country');
  const signatureName = checkText(input.signatureName, 'signature_name', LIMITS.nameLength);
  const signatureDate = checkPastOrToday(input.signatureDate, 'signature_date', today);
  violations.push(...legalName.violations, ...country.violations, ...signatureName.violations, ...signatureDate.violations);
  if (country.violations.length === 0) {
    if (form === 'w9' && country.value !== 'US')
      violations.push({ field: 'country', reason: 'a W-9 is for US persons: country must be US (use a W-8 form otherwise)' });
    if (form !== 'w9' && country.value === 'US')
      violations.push({ field: 'country', reason: 'W-8 forms are for persons outside the US: use a W-9 for US' });
  }
  // A W-8 that would have expired were it approved now: only a rule counted from the signature date refuses one (an old signature).
  if (
    form !== 'w9' &&
    signatureDate.violations.length === 0 &&
    w8ExpiresAt({ signatureDate: signatureDate.value, approvedAt: now }, w8Rule).getTime() <= now.getTime()
  ) {
    violations.push({ field: 'signature_date', reason: 'is so long ago that this W-8 has already expired; sign a new form' });
  }

  const fields: TaxFormFields = {
    formType: form,
    legalName: legalName.value,
    country: country.value,
    tinType: null,
    taxClassification: null,
    address: null,
    permanentAddress: null,
    dateOfBirth: null,
    chapter3Status: null,
    foreignTinNotRequired: false,
    foreignTinNotRequiredReason: null,
    signatureName: signatureName.value,
    signatureDate: signatureDate.value,
  };
  let taxIdNumber: string | null = null;

  if (form === 'w9') {
    const classification = checkOneOf(input.taxClassification, 'tax_classification', TAX_CLASSIFICATIONS);
    const tinType = checkOneOf(input.tinType, 'tin_type', W9_TIN_TYPES);
    const address = checkAddress(input.address, 'address');
    violations.push(...classification.violations, ...tinType.violations, ...address.violations);
    if (tinType.value === 'ssn' && classification.value !== null && EIN_ONLY[classification.value]) {
      violations.push({ field: 'tin_type', reason: `a ${classification.value} is identified by an EIN, not an SSN` });
    }
    if (input.taxIdNumber === undefined || input.taxIdNumber.trim() === '') {
      violations.push({ field: 'tax_id_number', reason: 'is required on a W-9 (the SSN or EIN)' });
    } else if (tinType.value !== null) {
      const tin = tinType.value === 'ssn' ? checkSsn(input.taxIdNumber, 'tax_id_number') : checkEin(input.taxIdNumber, 'tax_id_number');
      violations.push(...tin.violations);
      taxIdNumber = tin.value;
    }
    Object.assign(fields, {
      taxClassification: classification.value,
      tinType: tinType.value,
      address: address.value,
    });
  } else {
    const permanentAddress = checkAddress(input.permanentAddress, 'permanent_address');
    violations.push(...permanentAddress.violations);
    if (permanentAddress.value?.country === 'US') {
      violations.push({ field: 'permanent_address.country', reason: 'a W-8 permanent residence address is outside the US' });
    }
    fields.permanentAddress = permanentAddress.value;

    const hasTin = input.taxIdNumber !== undefined && input.taxIdNumber.trim() !== '';
    if (form === 'w8ben') {
      const dateOfBirth = checkPastOrToday(input.dateOfBirth, 'date_of_birth', today);
      violations.push(...dateOfBirth.violations);
      fields.dateOfBirth = dateOfBirth.value;
      const notRequired = input.foreignTinNotRequired === true;
      if (hasTin && notRequired) violations.push({ field: 'foreign_tin_not_required', reason: 'must not be true when tax_id_number is given' });
      if (!hasTin && !notRequired) {
        violations.push({ field: 'tax_id_number', reason: 'is required unless foreign_tin_not_required is true' });
      }
      fields.foreignTinNotRequired = notRequired;
    } else {
      const chapter3 = checkOneOf(input.chapter3Status, 'chapter3_status', CHAPTER3_STATUSES);
      const reason = checkOptionalText(input.foreignTinNotRequiredReason, 'foreign_tin_not_required_reason', LIMITS.reasonLength);
      violations.push(...chapter3.violations, ...reason.violations);
      if (hasTin && reason.value !== null) {
        violations.push({ field: 'foreign_tin_not_required_reason', reason: 'must be left out when tax_id_number is given' });
      }
      if (!hasTin && reason.value === null && reason.violations.length === 0) {
        violations.push({ field: 'tax_id_number', reason: 'is required unless foreign_tin_not_required_reason explains why there is none' });
      }
      fields.chapter3Status = chapter3.value;
      fields.foreignTinNotRequiredReason = reason.value;
      fields.foreignTinNotRequired = !hasTin && reason.value !== null;
    }
    if (hasTin) {
      const tin = checkForeignTin(input.taxIdNumber!, 'tax_id_number');
      violations.push(...tin.violations);
      taxIdNumber = tin.value;
      fields.tinType = 'foreign';
    }
  }

  if (violations.length > 0) throw invalidFields(violations);
  return { fields, taxIdNumber };
}
