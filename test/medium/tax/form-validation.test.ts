import { InvalidArgumentError } from '../../../services/rules/errors';
import type { TaxDomain } from '../../../services/tax/composition';
import type { TaxDatabase } from '../../../services/tax/database';
import type { DomainHarness } from '../../helpers/domain';
import { startTaxDomain } from '../../helpers/tax-domain';
import { TIN, w8ben, w8bene, w9 } from '../../tax/tax-forms';
import { ADMIN, formInput, newProject, newUser } from './fixtures';

const US = { line1: '1 Main St', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' };
const DE = { line1: 'Unter den Linden 1', city: 'Berlin', postal_code: '10117', country: 'DE' };

/**
 * Every rule of a tax form (TaxInfoService.submit -> validateTaxForm), on the domain: each failure
 * refused naming its field, nothing stored, and the tax id never repeated. What the HTTP schema
 * refuses before the service sees it (unknown fields, wrong JSON types) is tested in
 * test/tax/validation.test.ts.
 */
describe('tax form validation (domain)', () => {
  let harness: DomainHarness<TaxDomain, TaxDatabase>;
  let projectId: string;
  beforeAll(async () => {
    harness = await startTaxDomain();
    projectId = await newProject(harness);
  });
  afterAll(() => harness.stop());

  const storedRows = async () =>
    (await harness.sql.query('SELECT count(*)::int AS n FROM tax.tax_records WHERE project_id = $1', [projectId])).rows[0].n;
  const submit = (body: Record<string, unknown>, user = newUser()) => harness.domain.taxInfo.submit(projectId, user, formInput(body));

  const refusals: Array<[string, string, Record<string, unknown>]> = [
    ['a W-9 outside the US', 'country', w9({ country: 'DE' })],
    ['a W-8BEN for the US', 'country', w8ben({ country: 'US' })],
    ['a W-8BEN-E for the US', 'country', w8bene({ country: 'US' })],
    ['a country that is not ISO 3166-1 alpha-2', 'country', w8ben({ country: 'XX' })],
    ['a three-letter country code', 'country', w8ben({ country: 'DEU' })],
    ['an SSN with area 000', 'tax_id_number', w9({ tax_id_number: '000-45-6789' })],
    ['an SSN with area 666', 'tax_id_number', w9({ tax_id_number: '666-45-6789' })],
    ['an SSN with area 900', 'tax_id_number', w9({ tax_id_number: '900-45-6789' })],
    ['an SSN with area 999', 'tax_id_number', w9({ tax_id_number: '999456789' })],
    ['an SSN with group 00', 'tax_id_number', w9({ tax_id_number: '123-00-6789' })],
    ['an SSN with serial 0000', 'tax_id_number', w9({ tax_id_number: '123-45-0000' })],
    ['an SSN with misplaced dashes', 'tax_id_number', w9({ tax_id_number: '12-345-6789' })],
    ['an SSN of eight digits', 'tax_id_number', w9({ tax_id_number: '12345678' })],
    ['an SSN with letters', 'tax_id_number', w9({ tax_id_number: '123-45-678A' })],
    ['an EIN with prefix 00', 'tax_id_number', w9({ tin_type: 'ein', tax_id_number: '00-3456789' })],
    ['an EIN with prefix 07', 'tax_id_number', w9({ tin_type: 'ein', tax_id_number: '07-3456789' })],
    ['an EIN with prefix 89', 'tax_id_number', w9({ tin_type: 'ein', tax_id_number: '893456789' })],
    ['an EIN with prefix 97', 'tax_id_number', w9({ tin_type: 'ein', tax_id_number: '97-3456789' })],
    ['an EIN written like an SSN', 'tax_id_number', w9({ tin_type: 'ein', tax_id_number: '123-45-6789' })],
    ['a W-9 without a tax id', 'tax_id_number', w9({ tax_id_number: undefined })],
    ['a W-9 with a blank tax id', 'tax_id_number', w9({ tax_id_number: '   ' })],
    ['a corporation identified by an SSN', 'tin_type', w9({ tax_classification: 'c_corporation' })],
    ['a trust identified by an SSN', 'tin_type', w9({ tax_classification: 'trust_estate' })],
    ['an unknown tin_type', 'tin_type', w9({ tin_type: 'itin' })],
    ['an unknown tax classification', 'tax_classification', w9({ tax_classification: 'sole_proprietor' })],
    ['a W-9 without a tax classification', 'tax_classification', w9({ tax_classification: undefined })],
    ['a signature date in the future', 'signature_date', w9({ signature_date: '2026-11-22' })],
    ['a signature date that is no calendar date', 'signature_date', w9({ signature_date: '2026-02-30' })],
    ['a signature date before 1900', 'signature_date', w9({ signature_date: '1899-12-31' })],
    ['a signature date not written YYYY-MM-DD', 'signature_date', w9({ signature_date: '20261120' })],
    ['a blank legal name', 'legal_name', w9({ legal_name: '   ' })],
    ['a legal name over 200 characters', 'legal_name', w9({ legal_name: 'A'.repeat(201) })],
    ['a legal name with a control character', 'legal_name', w9({ legal_name: 'Ada\u0000' })],
    ['a missing signature name', 'signature_name', w9({ signature_name: undefined })],
    ['a W-8BEN without date of birth', 'date_of_birth', w8ben({ date_of_birth: undefined })],
    ['a date of birth in the future', 'date_of_birth', w8ben({ date_of_birth: '2027-01-01' })],
    ['a W-8BEN with neither foreign TIN nor foreign_tin_not_required', 'tax_id_number', w8ben({ tax_id_number: undefined })],
    [
      'a W-8BEN with foreign_tin_not_required false and no TIN',
      'tax_id_number',
      w8ben({ tax_id_number: undefined, foreign_tin_not_required: false }),
    ],
    ['a W-8BEN with both a TIN and foreign_tin_not_required', 'foreign_tin_not_required', w8ben({ foreign_tin_not_required: true })],
    ['a foreign TIN shorter than five characters', 'tax_id_number', w8ben({ tax_id_number: 'AB12' })],
    ['a foreign TIN with symbols', 'tax_id_number', w8ben({ tax_id_number: 'DE#12345' })],
    ['a W-8BEN-E with neither foreign TIN nor a reason', 'tax_id_number', w8bene({ tax_id_number: undefined })],
    ['a W-8BEN-E with both a TIN and a reason', 'foreign_tin_not_required_reason', w8bene({ foreign_tin_not_required_reason: 'none issued' })],
    ['an unknown chapter 3 status', 'chapter3_status', w8bene({ chapter3_status: 'llc' })],
    ['a W-8BEN-E without chapter 3 status', 'chapter3_status', w8bene({ chapter3_status: undefined })],
    ['an address with a blank line1', 'address.line1', w9({ address: { ...US, line1: ' ' } })],
    ['an address with a blank city', 'address.city', w9({ address: { ...US, city: ' ' } })],
    ['an address in an unknown country', 'address.country', w9({ address: { ...US, country: 'ZZ' } })],
    ['a US address without a state', 'address.region', w9({ address: { ...US, region: undefined } })],
    ['a US address with a malformed ZIP code', 'address.postal_code', w9({ address: { ...US, postal_code: '6270' } })],
    ['a W-9 without address', 'address', w9({ address: undefined })],
    ['a W-8 permanent address in the US', 'permanent_address.country', w8ben({ permanent_address: US })],
    ['a W-8 without permanent address', 'permanent_address', w8bene({ permanent_address: undefined })],
    ['a field of another form (date_of_birth on a W-9)', 'date_of_birth', w9({ date_of_birth: '1990-01-01' })],
    ['a field of another form (address on a W-8BEN)', 'address', w8ben({ address: DE })],
    ['a field of another form (foreign_tin_not_required on a W-8BEN-E)', 'foreign_tin_not_required', w8bene({ foreign_tin_not_required: true })],
    ['an unknown form type', 'form_type', w9({ form_type: 'w8' })],
    ['no form type', 'form_type', w9({ form_type: undefined })],
  ];

  it.each(refusals)('refuses %s naming %s, storing nothing and never repeating the tax id', async (_name, field, body) => {
    const error = await submit(body).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ kind: 'invalid_argument', code: 'VALIDATION_FAILED' });
    expect((error as { details: unknown[] }).details).toEqual(expect.arrayContaining([{ field, reason: expect.any(String) }]));
    const said = JSON.stringify({ message: (error as Error).message, details: (error as { details: unknown }).details });
    const digits = String(body.tax_id_number ?? '').replace(/\D/g, '');
    if (digits.length >= 4) expect(said.replace(/\D/g, ' ')).not.toContain(digits);
    if (typeof body.tax_id_number === 'string' && body.tax_id_number.trim() !== '') expect(said).not.toContain(body.tax_id_number);
    expect(await storedRows()).toBe(0);
  });

  it.each(['three_years', 'irs_calendar'])(
    'refuses a W-8 signed so long ago it has expired where validity counts from the signature (%s), naming signature_date',
    async (rule) => {
      const counted = await newProject(harness, { w8ExpiryRule: rule });
      const signedLongAgo = rule === 'three_years' ? '2023-11-20' : '2022-12-31';
      await expect(harness.domain.taxInfo.submit(counted, newUser(), formInput(w8ben({ signature_date: signedLongAgo })))).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field: 'signature_date', reason: expect.stringContaining('expired') }],
      });
      // Under the default (3 years from approval) the same form is taken: it would expire only 3 years after its approval.
      const byDefault = await newProject(harness);
      expect((await harness.domain.taxInfo.submit(byDefault, newUser(), formInput(w8ben({ signature_date: signedLongAgo })))).status).toBe(
        'submitted',
      );
    },
  );

  it('lists every problem of a form in one refusal', async () => {
    const refusal = submit(w9({ country: 'DE', tax_id_number: '000-00-0000', signature_date: '2030-01-01' }));
    const error: unknown = await refusal.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as InvalidArgumentError).details.map((detail) => detail.field).sort()).toEqual(['country', 'signature_date', 'tax_id_number']);
    expect(await storedRows()).toBe(0);
  });

  describe('accepted forms', () => {
    /** The stored tax id in full, as the audited admin read shows it. */
    const unmaskedTin = async (user: ReturnType<typeof newUser>) =>
      (await harness.domain.review.readUnmasked(projectId, user, ADMIN, null)).taxIdNumber;

    it.each([
      ['123-45-6789', TIN.ssn],
      ['123456789', TIN.ssn],
      [' 123-45-6789 ', TIN.ssn],
    ])('takes the SSN %j and stores its digits (read back as %s)', async (written, shown) => {
      const user = newUser();
      expect((await submit(w9({ tax_id_number: written }), user)).taxIdNumberMasked).toBe('*****6789');
      expect(await unmaskedTin(user)).toBe(shown);
    });

    it.each([
      ['12-3456789', 'c_corporation', '12-3456789'],
      ['983456789', 'llc', '98-3456789'],
      ['31-3456789', 'individual', '31-3456789'],
      ['01-3456789', 'partnership', '01-3456789'],
    ])('takes the EIN %s of a %s (read back as %s)', async (written, classification, shown) => {
      const user = newUser();
      expect(await submit(w9({ tin_type: 'ein', tax_id_number: written, tax_classification: classification }), user)).toMatchObject({
        tinType: 'ein',
        taxClassification: classification,
      });
      expect(await unmaskedTin(user)).toBe(shown);
    });

    it('takes a signature dated today (UTC), and normalises the country and the foreign TIN', async () => {
      const user = newUser();
      expect(await submit(w8ben({ country: 'de', signature_date: '2026-11-21', tax_id_number: 'de 9876-5432.10' }), user)).toMatchObject({
        country: 'DE',
        signatureDate: '2026-11-21',
        taxIdNumberMasked: '*****3210',
        tinType: 'foreign',
      });
      expect(await unmaskedTin(user)).toBe(TIN.foreignStored);
    });

    it('takes a W-8BEN without foreign TIN when foreign_tin_not_required is true', async () => {
      expect(await submit(w8ben({ tax_id_number: undefined, foreign_tin_not_required: true }))).toMatchObject({
        taxIdNumberMasked: null,
        foreignTinNotRequired: true,
        dateOfBirth: '1990-12-09',
        tinType: null,
      });
    });

    it('takes a W-8BEN-E without foreign TIN when the reason is given, with its chapter 3 status', async () => {
      expect(
        await submit(
          w8bene({
            tax_id_number: undefined,
            foreign_tin_not_required_reason: 'The Cayman Islands issue no TIN',
            chapter3_status: 'grantor_trust',
            country: 'KY',
          }),
        ),
      ).toMatchObject({
        taxIdNumberMasked: null,
        foreignTinNotRequired: true,
        foreignTinNotRequiredReason: 'The Cayman Islands issue no TIN',
        chapter3Status: 'grantor_trust',
        country: 'KY',
      });
    });

    it('trims text, keeps an address line2 and a ZIP+4, and drops an empty optional line', async () => {
      expect(
        await submit(w9({ legal_name: '  Ada Lovelace ', address: { ...US, line2: 'Suite 5', postal_code: '62701-1234', region: 'IL' } })),
      ).toMatchObject({
        legalName: 'Ada Lovelace',
        address: { line1: '1 Main St', line2: 'Suite 5', city: 'Springfield', region: 'IL', postalCode: '62701-1234', country: 'US' },
      });
      expect((await submit(w8ben({ permanent_address: { ...DE, line2: '  ' } }))).permanentAddress).toMatchObject({ line2: null, region: null });
    });
  });
});
