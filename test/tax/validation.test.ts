import { createProject, type TestProject } from '../helpers/fixtures';
import { startStack, type TestStack } from '../helpers/stack';
import { adminPaths, type Affiliate, signedInAffiliate, TIN, w8ben, w8bene, w9 } from './tax-forms';

const US = { line1: '1 Main St', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' };
const DE = { line1: 'Unter den Linden 1', city: 'Berlin', postal_code: '10117', country: 'DE' };

/** Every rule of a submission: each failure a 400 naming the field, and nothing stored. */
describe('tax form validation (POST affiliate-portal/tax-info)', () => {
  let stack: TestStack;
  let project: TestProject;
  let affiliate: Affiliate;
  beforeAll(async () => {
    stack = await startStack();
    project = await createProject(stack);
    affiliate = await signedInAffiliate(stack, project);
  });
  afterAll(() => stack.stop());

  const storedRows = async () =>
    (await stack.db.query('SELECT count(*)::int AS n FROM tax.tax_records WHERE project_id = $1', [project.id])).rows[0].n;

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
    ['a corporation identified by an SSN', 'tin_type', w9({ tax_classification: 'c_corporation' })],
    ['an unknown tin_type', 'tin_type', w9({ tin_type: 'itin' })],
    ['an unknown tax classification', 'tax_classification', w9({ tax_classification: 'sole_proprietor' })],
    ['a W-9 without a tax classification', 'tax_classification', w9({ tax_classification: undefined })],
    ['a signature date in the future', 'signature_date', w9({ signature_date: '2026-11-22' })],
    ['a signature date that is no calendar date', 'signature_date', w9({ signature_date: '2026-02-30' })],
    ['a signature date not written YYYY-MM-DD', 'signature_date', w9({ signature_date: '20261120' })],
    ['a W-8 signed so long ago it has expired', 'signature_date', w8ben({ signature_date: '2023-11-20' })],
    ['a blank legal name', 'legal_name', w9({ legal_name: '   ' })],
    ['a missing signature name', 'signature_name', w9({ signature_name: undefined })],
    ['a W-8BEN without date of birth', 'date_of_birth', w8ben({ date_of_birth: undefined })],
    ['a date of birth in the future', 'date_of_birth', w8ben({ date_of_birth: '2027-01-01' })],
    ['a W-8BEN with neither foreign TIN nor foreign_tin_not_required', 'tax_id_number', w8ben({ tax_id_number: undefined })],
    ['a W-8BEN with foreign_tin_not_required false and no TIN', 'tax_id_number', w8ben({ tax_id_number: undefined, foreign_tin_not_required: false })],
    ['a W-8BEN with both a TIN and foreign_tin_not_required', 'foreign_tin_not_required', w8ben({ foreign_tin_not_required: true })],
    ['a foreign TIN shorter than five characters', 'tax_id_number', w8ben({ tax_id_number: 'AB12' })],
    ['a foreign TIN with symbols', 'tax_id_number', w8ben({ tax_id_number: 'DE#12345' })],
    ['a W-8BEN-E with neither foreign TIN nor a reason', 'tax_id_number', w8bene({ tax_id_number: undefined })],
    ['a W-8BEN-E with both a TIN and a reason', 'foreign_tin_not_required_reason', w8bene({ foreign_tin_not_required_reason: 'none issued' })],
    ['an unknown chapter 3 status', 'chapter3_status', w8bene({ chapter3_status: 'llc' })],
    ['a W-8BEN-E without chapter 3 status', 'chapter3_status', w8bene({ chapter3_status: undefined })],
    ['an address without line1', 'address.line1', w9({ address: { ...US, line1: undefined } })],
    ['an address with a blank city', 'address.city', w9({ address: { ...US, city: ' ' } })],
    ['an address in an unknown country', 'address.country', w9({ address: { ...US, country: 'ZZ' } })],
    ['a US address without a state', 'address.region', w9({ address: { ...US, region: undefined } })],
    ['a US address with a malformed ZIP code', 'address.postal_code', w9({ address: { ...US, postal_code: '6270' } })],
    ['an unknown address field', 'address.street', w9({ address: { ...US, street: 'Main' } })],
    ['a W-8 permanent address in the US', 'permanent_address.country', w8ben({ permanent_address: US })],
    ['a W-8 without permanent address', 'permanent_address', w8bene({ permanent_address: undefined })],
    ['a client-set status', 'status', w9({ status: 'approved' })],
    ['an unknown field', 'nickname', w9({ nickname: 'ada' })],
    ['a field of another form (date_of_birth on a W-9)', 'date_of_birth', w9({ date_of_birth: '1990-01-01' })],
    ['a field of another form (address on a W-8BEN)', 'address', w8ben({ address: DE })],
    ['a field of another form (foreign_tin_not_required on a W-8BEN-E)', 'foreign_tin_not_required', w8bene({ foreign_tin_not_required: true })],
    ['an unknown form type', 'form_type', w9({ form_type: 'w8' })],
    ['no form type', 'form_type', w9({ form_type: undefined })],
    ['a tax id that is not a string', 'tax_id_number', w9({ tax_id_number: 123456789 })],
  ];

  it.each(refusals)('refuses %s with 400 naming %s, storing nothing', async (_name, field, body) => {
    const response = await affiliate.submit(body);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(response.body.details).toEqual(expect.arrayContaining([{ field, reason: expect.any(String) }]));
    // The refusal never repeats the tax id it refused.
    const digits = String(body.tax_id_number ?? '').replace(/\D/g, '');
    if (digits.length >= 4) expect(response.text.replace(/\D/g, ' ')).not.toContain(digits);
    if (typeof body.tax_id_number === 'string') expect(response.text).not.toContain(body.tax_id_number);
    expect(await storedRows()).toBe(0);
    expect((await affiliate.taxInfo()).status).toBe(404);
  });

  it('lists every problem of a form in one answer', async () => {
    const response = await affiliate.submit(w9({ country: 'DE', tax_id_number: '000-00-0000', signature_date: '2030-01-01' }));
    expect(response.status).toBe(400);
    expect(response.body.details.map((detail: { field: string }) => detail.field).sort()).toEqual(['country', 'signature_date', 'tax_id_number']);
    expect(await storedRows()).toBe(0);
  });

  describe('accepted forms', () => {
    let accepting: TestProject;
    beforeAll(async () => {
      accepting = await createProject(stack);
    });

    const submitFresh = async (body: Record<string, unknown>) => (await signedInAffiliate(stack, accepting)).submit(body);
    const unmasked = async (address: string) =>
      (await stack.api.get(adminPaths(accepting, address).taxStatus, { key: accepting.keys.admin })).body.tax_info;

    it('takes an SSN with or without dashes and stores its digits', async () => {
      for (const written of ['123-45-6789', '123456789']) {
        const response = await submitFresh(w9({ tax_id_number: written }));
        expect(response.status).toBe(201);
        expect(response.body.tax_id_number).toBe('*****6789');
        expect((await unmasked(response.body.user_identifier)).tax_id_number).toBe(TIN.ssn);
      }
    });

    it('takes an EIN with a valid prefix, with or without its dash, for any classification', async () => {
      const accepted: Array<[string, string, string]> = [
        ['12-3456789', 'c_corporation', '12-3456789'],
        ['983456789', 'llc', '98-3456789'],
        ['31-3456789', 'individual', '31-3456789'],
      ];
      for (const [written, classification, stored] of accepted) {
        const response = await submitFresh(w9({ tin_type: 'ein', tax_id_number: written, tax_classification: classification }));
        expect(response.status).toBe(201);
        expect(response.body).toMatchObject({ tin_type: 'ein', tax_classification: classification });
        expect((await unmasked(response.body.user_identifier)).tax_id_number).toBe(stored);
      }
    });

    it('takes a signature dated today (UTC) and normalises the country and foreign TIN', async () => {
      const response = await submitFresh(w8ben({ country: 'de', signature_date: '2026-11-21', tax_id_number: 'de 9876-5432.10' }));
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ country: 'DE', signature_date: '2026-11-21', tax_id_number: '*****3210' });
      expect((await unmasked(response.body.user_identifier)).tax_id_number).toBe('DE9876543210');
    });

    it('takes a W-8BEN without foreign TIN when foreign_tin_not_required is true', async () => {
      const response = await submitFresh(w8ben({ tax_id_number: undefined, foreign_tin_not_required: true }));
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ tax_id_number: null, foreign_tin_not_required: true, date_of_birth: '1990-12-09' });
    });

    it('takes a W-8BEN-E without foreign TIN when the reason is given, with its chapter 3 status', async () => {
      const response = await submitFresh(
        w8bene({ tax_id_number: undefined, foreign_tin_not_required_reason: 'The Cayman Islands issue no TIN', chapter3_status: 'grantor_trust', country: 'KY' }),
      );
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({
        tax_id_number: null,
        foreign_tin_not_required: true,
        foreign_tin_not_required_reason: 'The Cayman Islands issue no TIN',
        chapter3_status: 'grantor_trust',
        country: 'KY',
      });
    });

    it('answers the stored form in full shape, addresses included', async () => {
      const response = await submitFresh(w9({ address: { ...US, line2: 'Suite 5', postal_code: '62701-1234' } }));
      expect(response.body).toEqual({
        id: expect.any(String),
        user_identifier: expect.stringMatching(/^0x[0-9a-f]{40}$/),
        user_identifier_type: 'evm_address',
        form_type: 'w9',
        status: 'submitted',
        legal_name: 'Ada Lovelace',
        country: 'US',
        tax_id_number: '*****6789',
        tin_type: 'ssn',
        tax_classification: 'individual',
        address: { line1: '1 Main St', line2: 'Suite 5', city: 'Springfield', region: 'IL', postal_code: '62701-1234', country: 'US' },
        date_of_birth: null,
        permanent_address: null,
        foreign_tin_not_required: false,
        foreign_tin_not_required_reason: null,
        chapter3_status: null,
        signature_name: 'Ada Lovelace',
        signature_date: '2026-11-20',
        submitted_at: '2026-11-21T12:00:00.000Z',
        approved_at: null,
        expires_at: null,
        revoked_at: null,
        revoked_reason: null,
      });
    });
  });
});
