import type { ApiBody, ApiResult } from '../../api/client';
import { address, type FieldSpec } from '../../portal/tax/tax-form-fields';

export type TaxSettings = ApiResult<'/api/v1/projects/{projectId}/tax-settings', 'get'>;
export type TaxSettingsChanges = ApiBody<'/api/v1/projects/{projectId}/tax-settings', 'patch'>;

type W8ExpiryRule = TaxSettings['w8_expiry_rule'];

/** The rule of a program that never chose one (the specification's: 3 years after approval). */
export const DEFAULT_W8_EXPIRY_RULE: W8ExpiryRule = 'three_years_from_approval';

/** Every rule the API offers, the default first; a Record over the API's enum, so a rule it adds fails the type check here until listed. */
const W8_RULE_WORDS: Record<W8ExpiryRule, string> = {
  three_years_from_approval: '3 years after approval',
  three_years: '3 years after the signature date',
  irs_calendar: 'On 31 December of the third year after signing (IRS rule)',
};
const W8_EXPIRY_RULES = Object.entries(W8_RULE_WORDS) as Array<[W8ExpiryRule, string]>;

/** Not an API field: asks to clear the stored company EIN (sent as `company_tax_id: null`). */
export const REMOVE_TAX_ID = 'remove_company_tax_id';
const ADDRESS_KEYS = ['line1', 'line2', 'city', 'region', 'postal_code', 'country'] as const;
const OPTIONAL_ADDRESS_KEYS = new Set<string>(['line2', 'region']);

/** The inputs, each named by its path in the PATCH body, so the API's field errors land next to them. */
export function settingsFields(settings: TaxSettings): { program: FieldSpec[]; company: FieldSpec[] } {
  return {
    program: [
      { name: 'require_tax_info', label: 'Affiliates need an approved tax form to claim affiliate payouts', kind: 'checkbox' },
      {
        name: 'w8_expiry_rule',
        label: 'When an approved W-8 expires',
        kind: 'select',
        options: W8_EXPIRY_RULES.map(([rule, words]) => [rule, rule === DEFAULT_W8_EXPIRY_RULE ? `${words} (default)` : words] as const),
        help:
          `Applies to approvals from now on; forms already approved keep their date. ` +
          (settings.w8_expiry_rule_chosen ? 'This program chose its rule.' : 'This program follows the default.'),
      },
    ],
    company: [
      { name: 'company_legal_name', label: 'Company legal name', optional: true, autoComplete: 'organization' },
      { name: 'company_contact_email', label: 'Tax contact email', optional: true, autoComplete: 'email' },
      {
        name: 'company_tax_id',
        label: 'New company EIN',
        kind: 'secret',
        optional: true,
        help: settings.company_tax_id ? `Stored: ${settings.company_tax_id}. Leave empty to keep it.` : 'None stored. Format 12-3456789.',
      },
      ...(settings.company_tax_id ? [{ name: REMOVE_TAX_ID, label: 'Remove the stored company EIN', kind: 'checkbox' as const }] : []),
      ...address('company_address', 'Company address').map((field) => ({ ...field, optional: true })),
    ],
  };
}

/** The settings as input values (the EIN input starts empty: the stored one is only ever shown masked). */
export function settingsValues(settings: TaxSettings): Record<string, string> {
  const values: Record<string, string> = {
    require_tax_info: String(settings.require_tax_info),
    w8_expiry_rule: settings.w8_expiry_rule,
    company_legal_name: settings.company_legal_name ?? '',
    company_contact_email: settings.company_contact_email ?? '',
    company_tax_id: '',
    [REMOVE_TAX_ID]: 'false',
  };
  for (const key of ADDRESS_KEYS) values[`company_address.${key}`] = settings.company_address?.[key] ?? '';
  return values;
}

const emptyToNull = (value: string | undefined) => (value?.trim() ? value.trim() : null);

/**
 * The PATCH body: only what the admin changed (the API changes only the fields present). An
 * emptied company field is `null` (cleared); the address goes whole, or `null` when every line is empty.
 */
export function settingsChanges(initial: Record<string, string>, values: Record<string, string>): TaxSettingsChanges {
  const changed = (name: string) => (values[name] ?? '') !== (initial[name] ?? '');
  const body: TaxSettingsChanges = {};
  if (changed('require_tax_info')) body.require_tax_info = values.require_tax_info === 'true';
  if (changed('w8_expiry_rule')) body.w8_expiry_rule = values.w8_expiry_rule as TaxSettingsChanges['w8_expiry_rule'];
  if (changed('company_legal_name')) body.company_legal_name = emptyToNull(values.company_legal_name);
  if (changed('company_contact_email')) body.company_contact_email = emptyToNull(values.company_contact_email);
  if (values[REMOVE_TAX_ID] === 'true') body.company_tax_id = null;
  else if (values.company_tax_id?.trim()) body.company_tax_id = values.company_tax_id.trim();
  if (ADDRESS_KEYS.some((key) => changed(`company_address.${key}`))) {
    const lines = Object.fromEntries(ADDRESS_KEYS.map((key) => [key, values[`company_address.${key}`]?.trim() ?? '']));
    if (ADDRESS_KEYS.every((key) => !lines[key])) body.company_address = null;
    else {
      const kept = Object.entries(lines).filter(([key, value]) => value || !OPTIONAL_ADDRESS_KEYS.has(key));
      body.company_address = Object.fromEntries(kept) as NonNullable<TaxSettingsChanges['company_address']>;
    }
  }
  return body;
}
