import { createProject, startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';
import { type Affiliate, signedInAffiliate, w8ben, w8bene, w9 } from './tax-forms';

const US = { line1: '1 Main St', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' };
const DE = { line1: 'Unter den Linden 1', city: 'Berlin', postal_code: '10117', country: 'DE' };

/** A submission's refusals over HTTP: each a 400 naming the field, and nothing stored. */
describe('tax form validation (POST affiliate-portal/tax-info)', () => {
  let stack: TestStack;
  let project: TestProject;
  let affiliate: Affiliate;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    affiliate = await signedInAffiliate(stack, project);
  });
  afterAll(() => stack.stop());

  const storedRows = async () =>
    (await stack.db.query('SELECT count(*)::int AS n FROM tax.tax_records WHERE project_id = $1', [project.id])).rows[0].n;

  /**
   * What the HTTP schema refuses before the service sees it (every rule of the form itself is
   * tested on the domain: test/medium/tax/form-validation.test.ts), and one refusal of the service.
   */
  const refusals: Array<[string, string, Record<string, unknown>]> = [
    ['a client-set status', 'status', w9({ status: 'approved' })],
    ['an unknown field', 'nickname', w9({ nickname: 'ada' })],
    ['an unknown address field', 'address.street', w9({ address: { ...US, street: 'Main' } })],
    ['a field of another form (address on a W-8BEN)', 'address', w8ben({ address: DE })],
    ['an unknown form type', 'form_type', w9({ form_type: 'w8' })],
    ['a tax id that is not a string', 'tax_id_number', w9({ tax_id_number: 123456789 })],
    ['a missing signature name', 'signature_name', w9({ signature_name: undefined })],
    ['a signature date not written YYYY-MM-DD', 'signature_date', w9({ signature_date: '20261120' })],
    ['an unknown chapter 3 status', 'chapter3_status', w8bene({ chapter3_status: 'llc' })],
    // The service's rules, past the schema: the same answer, naming the field, the tax id never repeated.
    ['an SSN with area 666 (the service)', 'tax_id_number', w9({ tax_id_number: '666-45-6789' })],
    ['a W-9 outside the US (the service)', 'country', w9({ country: 'DE' })],
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

  describe('accepted forms', () => {
    let accepting: TestProject;
    beforeAll(async () => {
      accepting = await createProject(stack);
    });

    const submitFresh = async (body: Record<string, unknown>) => (await signedInAffiliate(stack, accepting)).submit(body);

    it('answers a W-8BEN-E with its vocabularies by name, and no TIN type for a form without tax id', async () => {
      const response = await submitFresh(
        w8bene({
          tax_id_number: undefined,
          foreign_tin_not_required_reason: 'The Cayman Islands issue no TIN',
          chapter3_status: 'grantor_trust',
          country: 'KY',
        }),
      );
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({
        form_type: 'w8bene',
        chapter3_status: 'grantor_trust',
        tin_type: null,
        tax_classification: null,
        tax_id_number: null,
        foreign_tin_not_required: true,
        permanent_address: { ...DE, line2: null, region: null },
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
