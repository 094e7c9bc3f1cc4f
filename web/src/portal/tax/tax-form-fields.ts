/**
 * The fields of each tax form, named by their path in the API's body (`permanent_address.city`),
 * which is also how the API's validation names a problem: each error lands next to its input.
 */
export type FormType = 'w9' | 'w8ben' | 'w8bene';

export interface FieldSpec {
  name: string;
  label: string;
  /** A date is typed as the API and every screen write it, YYYY-MM-DD (a browser's date picker shows the reader's locale instead); a country is picked by name. */
  kind?: 'text' | 'date' | 'select' | 'country' | 'checkbox' | 'secret';
  options?: ReadonlyArray<readonly [value: string, label: string]>;
  help?: string;
  optional?: boolean;
  autoComplete?: string;
}

export const address = (prefix: string, legend: string): FieldSpec[] => [
  { name: `${prefix}.line1`, label: `${legend}: street and number`, autoComplete: 'address-line1' },
  { name: `${prefix}.line2`, label: `${legend}: line 2`, optional: true, autoComplete: 'address-line2' },
  { name: `${prefix}.city`, label: `${legend}: city`, autoComplete: 'address-level2' },
  {
    name: `${prefix}.region`,
    label: `${legend}: state or region`,
    optional: true,
    help: 'Required for a US address.',
    autoComplete: 'address-level1',
  },
  { name: `${prefix}.postal_code`, label: `${legend}: postal code`, autoComplete: 'postal-code' },
  { name: `${prefix}.country`, label: `${legend}: country`, kind: 'country', autoComplete: 'country' },
];

const identity: FieldSpec[] = [
  { name: 'legal_name', label: 'Legal name', autoComplete: 'name' },
  { name: 'country', label: 'Country', kind: 'country', help: 'Of residence (a person) or incorporation (an entity).' },
];

const signature: FieldSpec[] = [
  { name: 'signature_name', label: 'Signed by (full name)' },
  { name: 'signature_date', label: 'Date signed', kind: 'date', help: 'Year-month-day, e.g. 2026-03-31.' },
];

const CHAPTER3 = [
  'corporation',
  'disregarded_entity',
  'partnership',
  'simple_trust',
  'grantor_trust',
  'complex_trust',
  'estate',
  'foreign_government_controlled_entity',
  'foreign_government_integral_part',
  'central_bank_of_issue',
  'tax_exempt_organization',
  'private_foundation',
  'international_organization',
] as const;
const words = (value: string) => value.replace(/_/g, ' ').replace(/^./, (first) => first.toUpperCase());

/** The perjury statement each form is signed under: the affiliate confirms it before the form is sent (it is not part of the API's body). */
const PERJURY = 'Under penalties of perjury, I certify that the information on this form is true, correct and complete';

export const FORMS: Record<FormType, { title: string; who: string; certification: string; fields: FieldSpec[] }> = {
  w9: {
    title: 'W-9',
    who: 'US persons and US companies.',
    certification: `${PERJURY}, that the tax id number on it is my correct taxpayer identification number, and that I am a US person.`,
    fields: [
      ...identity,
      {
        name: 'tin_type',
        label: 'Tax id type',
        kind: 'select',
        options: [
          ['ssn', 'Social security number (SSN)'],
          ['ein', 'Employer identification number (EIN)'],
        ],
      },
      { name: 'tax_id_number', label: 'Tax id number', kind: 'secret', help: 'SSN 123-45-6789 or EIN 12-3456789.' },
      {
        name: 'tax_classification',
        label: 'Tax classification',
        kind: 'select',
        options: (['individual', 'c_corporation', 's_corporation', 'partnership', 'trust_estate', 'llc', 'other'] as const).map(
          (value) => [value, words(value)] as const,
        ),
      },
      ...address('address', 'Address'),
      ...signature,
    ],
  },
  w8ben: {
    title: 'W-8BEN',
    who: 'People living outside the US.',
    certification: `${PERJURY}, that I am the beneficial owner of the income it covers, and that I am not a US person.`,
    fields: [
      ...identity,
      { name: 'date_of_birth', label: 'Date of birth', kind: 'date', autoComplete: 'bday', help: 'Year-month-day, e.g. 1990-12-09.' },
      {
        name: 'tax_id_number',
        label: 'Foreign tax id number',
        kind: 'secret',
        optional: true,
        help: 'Required unless your country issues none to you.',
      },
      { name: 'foreign_tin_not_required', label: 'My country of residence issues no tax id to me', kind: 'checkbox', optional: true },
      ...address('permanent_address', 'Permanent address'),
      ...signature,
    ],
  },
  w8bene: {
    title: 'W-8BEN-E',
    who: 'Companies and other entities outside the US.',
    certification: `${PERJURY}, that the entity it names is the beneficial owner of the income it covers, that it is not a US person, and that I may sign for it.`,
    fields: [
      ...identity,
      {
        name: 'chapter3_status',
        label: 'Entity type (chapter 3 status)',
        kind: 'select',
        options: CHAPTER3.map((value) => [value, words(value)] as const),
      },
      { name: 'tax_id_number', label: 'Foreign tax id number', kind: 'secret', optional: true, help: 'Required unless you give the reason below.' },
      { name: 'foreign_tin_not_required_reason', label: 'Why the entity has no foreign tax id', optional: true },
      ...address('permanent_address', 'Permanent address'),
      ...signature,
    ],
  },
};

/**
 * The JSON body for the API from the inputs: paths become nested objects, empty optional fields are
 * left out (the API then names what is missing), the checkbox becomes a boolean.
 */
export function formBody(type: FormType, values: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = { form_type: type };
  for (const field of FORMS[type].fields) {
    const raw = values[field.name] ?? '';
    let value: unknown = field.kind === 'checkbox' ? raw === 'true' : raw.trim();
    if (value === '' || value === false) {
      if (field.optional) continue;
      value = field.kind === 'checkbox' ? false : '';
    }
    const path = field.name.split('.');
    let target = body;
    for (const part of path.slice(0, -1)) target = (target[part] ??= {}) as Record<string, unknown>;
    target[path[path.length - 1]!] = value;
  }
  return body;
}
