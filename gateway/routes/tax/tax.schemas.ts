import { z } from 'zod';
import {
  Chapter3Status,
  EffectiveTaxStatus,
  FormType,
  RecordStatus,
  TaxClassification,
  TinType,
  W8ExpiryRule,
} from '../../../gen/referral/tax/v1/enums';
import { TAX_TEXT_LIMITS as LIMITS } from '../../../services/rules/contract-limits';
import { enumNames } from '../../../services/rules/enums';
import { listSchema, pageQuery } from '../../http/list';
import { identifierTypeQuery, userIdentifier } from '../../http/params';

/**
 * HTTP shapes of the affiliate portal and tax administration (snake_case); the gRPC contract is
 * proto/referral/tax, whose enums every vocabulary here is derived from. The service checks every
 * rule again (country list, SSN/EIN rules, dates): these shapes refuse what is malformed and document
 * what is accepted.
 */
const timestamp = z.string().describe('ISO-8601 UTC');
const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date written YYYY-MM-DD');
const countryCode = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'must be a two-letter ISO 3166-1 alpha-2 country code')
  .describe('ISO 3166-1 alpha-2, e.g. US, DE, BR');

const formTypes = z.enum(enumNames(FormType));
const recordStatuses = z.enum(enumNames(RecordStatus));
const taxClassifications = z.enum(enumNames(TaxClassification));
const tinTypes = z.enum(enumNames(TinType));
/** Form W-8BEN-E, Part I, line 4. */
const chapter3Statuses = z.enum(enumNames(Chapter3Status));
const w8ExpiryRules = z.enum(enumNames(W8ExpiryRule));
const W8_RULES =
  'three_years_from_approval (the default, the specification’s rule): 3 years after the approval, to the instant; three_years: ' +
  '3 years after the signature date; irs_calendar: through 31 December of the third year after signing.';

export const addressBody = z.strictObject({
  line1: z.string().max(LIMITS.addressLineLength),
  line2: z.string().max(LIMITS.addressLineLength).optional(),
  city: z.string().max(LIMITS.cityLength),
  region: z.string().max(LIMITS.regionLength).optional().describe('State, province or region; required for a US address'),
  postal_code: z.string().max(LIMITS.postalCodeLength).describe('A US address takes a ZIP code (12345 or 12345-6789)'),
  country: countryCode,
});

export const addressSchema = z.object({
  line1: z.string(),
  line2: z.string().nullable(),
  city: z.string(),
  region: z.string().nullable(),
  postal_code: z.string(),
  country: z.string(),
});

const formCommon = {
  legal_name: z.string().max(LIMITS.nameLength).describe('Legal name of the individual or entity'),
  country: countryCode.describe('Country of residence (individuals) or incorporation (entities): US for a W-9, never US for a W-8'),
  signature_name: z.string().max(LIMITS.nameLength),
  signature_date: isoDate.describe('YYYY-MM-DD, not in the future (UTC)'),
};

const w9Body = z
  .strictObject({
    form_type: z.literal('w9'),
    ...formCommon,
    tax_id_number: z.string().max(20).describe('SSN (123-45-6789) or EIN (12-3456789); dashes optional'),
    tin_type: tinTypes,
    tax_classification: taxClassifications.describe('Corporations, partnerships and trusts give an EIN'),
    address: addressBody,
  })
  .describe('Form W-9 (US persons)');

const w8benBody = z
  .strictObject({
    form_type: z.literal('w8ben'),
    ...formCommon,
    tax_id_number: z.string().max(64).optional().describe('Foreign TIN; required unless foreign_tin_not_required is true'),
    foreign_tin_not_required: z.boolean().optional().describe('true when the country of residence issues no TIN to you'),
    date_of_birth: isoDate,
    permanent_address: addressBody.describe('Permanent residence address, outside the US'),
  })
  .describe('Form W-8BEN (foreign individuals)');

const w8beneBody = z
  .strictObject({
    form_type: z.literal('w8bene'),
    ...formCommon,
    tax_id_number: z.string().max(64).optional().describe('Foreign TIN; required unless foreign_tin_not_required_reason is given'),
    foreign_tin_not_required_reason: z.string().max(LIMITS.reasonLength).optional().describe('Why the entity has no foreign TIN'),
    chapter3_status: chapter3Statuses,
    permanent_address: addressBody.describe('Permanent residence address, outside the US'),
  })
  .describe('Form W-8BEN-E (foreign entities)');

/** Unknown fields are refused, `status` included: no client sets a status. */
export const taxInfoBody = z.discriminatedUnion('form_type', [w9Body, w8benBody, w8beneBody]);
export type TaxInfoBody = z.output<typeof taxInfoBody>;

const taxInfoFields = {
  id: z.string(),
  user_identifier: z.string(),
  user_identifier_type: z.string(),
  form_type: formTypes,
  status: recordStatuses.describe('The record’s status; an approved W-8 past expires_at reads expired'),
  legal_name: z.string(),
  country: z.string(),
  tin_type: tinTypes.nullable(),
  tax_classification: taxClassifications.nullable(),
  address: addressSchema.nullable(),
  date_of_birth: z.string().nullable(),
  permanent_address: addressSchema.nullable(),
  foreign_tin_not_required: z.boolean(),
  foreign_tin_not_required_reason: z.string().nullable(),
  chapter3_status: chapter3Statuses.nullable(),
  signature_name: z.string(),
  signature_date: z.string(),
  submitted_at: timestamp,
  approved_at: timestamp.nullable(),
  expires_at: timestamp.nullable().describe('W-8 forms: set when approved'),
  revoked_at: timestamp.nullable(),
  revoked_reason: z.string().nullable(),
};

export const taxInfoSchema = z.object({
  ...taxInfoFields,
  tax_id_number: z.string().nullable().describe('Masked: only the last four characters show, e.g. *****6789'),
});

export const unmaskedTaxInfoSchema = z.object({
  ...taxInfoFields,
  tax_id_number: z.string().nullable().describe('In full. Every read of this endpoint is written to the audit log'),
});

const statusFields = {
  status: z.enum(enumNames(EffectiveTaxStatus)),
  form_type: formTypes.nullable(),
  submitted_at: timestamp.nullable(),
  approved_at: timestamp.nullable(),
  expires_at: timestamp.nullable(),
  revoked_reason: z.string().nullable(),
};

export const taxStatusSchema = z.object(statusFields);

export const adminTaxStatusSchema = z.object({
  user_identifier: z.string(),
  user_identifier_type: z.string(),
  ...statusFields,
  tax_info: unmaskedTaxInfoSchema.nullable().describe('The current record, unmasked; null when nothing was submitted'),
});

/** A review-queue item: the record, or (unreadable) the record without its tax id. */
export const taxSubmissionSchema = taxInfoSchema.extend({
  tax_id_number: z
    .string()
    .nullable()
    .describe('Masked: only the last four characters show, e.g. *****6789; null when the form has none or it is unreadable'),
  unreadable: z
    .boolean()
    .describe(
      'true when the stored tax id cannot be decrypted (it was sealed under another binding, or with a key that is no longer configured): ' +
        '`tax_id_number` is null and the other fields show as stored. An operator finds the record by `id` to repair or quarantine it; ' +
        'reads of this one record answer 409 TAX_INFO_UNREADABLE, and the rest of the list reads as usual.',
    ),
});

export const taxInfoListSchema = listSchema(taxSubmissionSchema);

export const taxSettingsSchema = z.object({
  require_tax_info: z.boolean(),
  company_legal_name: z.string().nullable(),
  company_address: addressSchema.nullable(),
  company_tax_id: z.string().nullable().describe('The company EIN, masked: *****6789'),
  company_contact_email: z.string().nullable(),
  w8_expiry_rule: w8ExpiryRules.describe(`The rule in force for approvals from now on: the project’s choice, or the default. ${W8_RULES}`),
  w8_expiry_rule_chosen: z
    .boolean()
    .describe('true when the project chose w8_expiry_rule; false while it follows the default (three_years_from_approval)'),
  updated_at: timestamp.nullable().describe('null while the project has its default settings'),
});

export const taxSettingsBody = z.strictObject({
  require_tax_info: z.boolean().optional().describe('Whether affiliates must have approved tax info to claim affiliate payouts'),
  company_legal_name: z.string().max(LIMITS.nameLength).nullable().optional(),
  company_address: addressBody.nullable().optional(),
  company_tax_id: z.string().max(20).nullable().optional().describe('The company EIN (12-3456789); stored encrypted'),
  company_contact_email: z.string().max(254).nullable().optional(),
  w8_expiry_rule: w8ExpiryRules
    .nullable()
    .optional()
    .describe(`When an approved W-8 expires, for approvals from now on; null: back to the default (three_years_from_approval). ${W8_RULES}`),
});

export const auditEntrySchema = z.object({
  id: z.string(),
  action: z.string().describe('tax_info.unmasked_read'),
  actor_api_key_id: z.string(),
  user_identifier: z.string(),
  user_identifier_type: z.string(),
  tax_record_id: z.string().nullable(),
  request_id: z.string().nullable(),
  occurred_at: timestamp,
});

export const auditLogSchema = listSchema(auditEntrySchema);

export const revokeBody = z.strictObject({ reason: z.string().max(LIMITS.reasonLength).describe('Shown to the affiliate') });

export const affiliateQuery = z.object({
  user_identifier_type: identifierTypeQuery.default('evm_address').describe('The identifier’s type; evm_address when left out'),
});
export const submissionsQuery = z.object({
  ...pageQuery,
  status: recordStatuses.optional().describe('Only records in this status; submitted is the review queue'),
  user_identifier: userIdentifier(z.string().min(1).max(512))
    .optional()
    .describe('Only this user’s current record (masked; the unaudited way to open one record)'),
  user_identifier_type: identifierTypeQuery.default('evm_address').describe('The type of user_identifier; evm_address when left out'),
});
export const listQuery = z.object(pageQuery);
