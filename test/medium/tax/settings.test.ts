import { randomUUID } from 'node:crypto';
import type { TaxDomain } from '../../../services/tax/composition';
import type { TaxDatabase } from '../../../services/tax/database';
import type { TaxSettingsInput } from '../../../services/tax/domain/tax-settings.service';
import type { DomainHarness } from '../../helpers/domain';
import { startTaxDomain } from '../../helpers/tax-domain';

const COMPANY_ADDRESS = { line1: '500 Market St', line2: 'Floor 3', city: 'San Francisco', region: 'CA', postalCode: '94105', country: 'US' };
const COMPANY = {
  companyLegalName: 'Referral Labs Inc.',
  companyAddress: COMPANY_ADDRESS,
  companyTaxId: '45-7891234',
  companyContactEmail: 'Tax@Referral-Labs.example',
};
const COMPANY_MASK = ['company_legal_name', 'company_address', 'company_tax_id', 'company_contact_email'];

/** The rules of a project's tax settings (TaxSettingsService), on the domain and its table. */
describe('tax settings (domain)', () => {
  let harness: DomainHarness<TaxDomain, TaxDatabase>;
  beforeAll(async () => {
    harness = await startTaxDomain();
  });
  afterAll(() => harness.stop());

  const update = (projectId: string, mask: string[], input: TaxSettingsInput) => harness.domain.settings.update(projectId, mask, input);

  it('starts with the defaults, unstored: tax info not required, W-8s valid 3 years from approval (not chosen), no company', async () => {
    const projectId = randomUUID();
    expect(await harness.domain.settings.get(projectId)).toEqual({
      requireTaxInfo: false,
      companyLegalName: null,
      companyAddress: null,
      companyTaxIdMasked: null,
      companyContactEmail: null,
      w8ExpiryRule: 'three_years_from_approval',
      w8ExpiryRuleChosen: false,
      updatedAt: null,
    });
    expect((await harness.sql.query('SELECT count(*)::int AS n FROM tax.tax_settings WHERE project_id = $1', [projectId])).rows[0].n).toBe(0);
  });

  it('changes only the fields the mask names, normalises the email and shows the EIN masked', async () => {
    const projectId = randomUUID();
    expect(await update(projectId, ['require_tax_info'], { requireTaxInfo: true })).toMatchObject({ requireTaxInfo: true, companyLegalName: null });
    harness.clock.advance(60_000);
    expect(await update(projectId, [...COMPANY_MASK, 'w8_expiry_rule'], { ...COMPANY, w8ExpiryRule: 'irs_calendar' })).toEqual({
      requireTaxInfo: true,
      companyLegalName: 'Referral Labs Inc.',
      companyAddress: COMPANY_ADDRESS,
      companyTaxIdMasked: '*****1234',
      companyContactEmail: 'tax@referral-labs.example',
      w8ExpiryRule: 'irs_calendar',
      w8ExpiryRuleChosen: true,
      updatedAt: harness.clock.now(),
    });
  });

  it('tells a chosen W-8 rule from the default: another setting chooses none, naming one pins it (the default’s too), unset follows the default again', async () => {
    const projectId = randomUUID();
    const stored = async () =>
      (await harness.sql.query('SELECT w8_expiry_rule FROM tax.tax_settings WHERE project_id = $1', [projectId])).rows[0].w8_expiry_rule;
    expect(await update(projectId, ['require_tax_info'], { requireTaxInfo: true })).toMatchObject({
      w8ExpiryRule: 'three_years_from_approval',
      w8ExpiryRuleChosen: false,
    });
    expect(await stored()).toBeNull();
    expect(await update(projectId, ['w8_expiry_rule'], { w8ExpiryRule: 'three_years' })).toMatchObject({
      w8ExpiryRule: 'three_years',
      w8ExpiryRuleChosen: true,
    });
    expect(await update(projectId, ['company_legal_name'], { companyLegalName: 'Acme' })).toMatchObject({
      w8ExpiryRule: 'three_years',
      w8ExpiryRuleChosen: true,
    });
    expect(await update(projectId, ['w8_expiry_rule'], { w8ExpiryRule: 'three_years_from_approval' })).toMatchObject({
      w8ExpiryRule: 'three_years_from_approval',
      w8ExpiryRuleChosen: true,
    });
    expect(await stored()).toBe('three_years_from_approval');
    expect(await update(projectId, ['w8_expiry_rule'], {})).toMatchObject({ w8ExpiryRule: 'three_years_from_approval', w8ExpiryRuleChosen: false });
    expect(await stored()).toBeNull();
  });

  it('clears a company field the mask names but the input leaves unset, and keeps the rest', async () => {
    const projectId = randomUUID();
    await update(projectId, COMPANY_MASK, COMPANY);
    expect(await update(projectId, ['company_tax_id', 'company_address'], {})).toMatchObject({
      companyTaxIdMasked: null,
      companyAddress: null,
      companyLegalName: 'Referral Labs Inc.',
    });
    const { rows } = await harness.sql.query('SELECT company_tax_id_ciphertext, company_tax_id_key_id FROM tax.tax_settings WHERE project_id = $1', [
      projectId,
    ]);
    expect(rows).toEqual([{ company_tax_id_ciphertext: null, company_tax_id_key_id: null }]);
  });

  it('stores the company EIN encrypted under the active key, never its digits', async () => {
    const projectId = randomUUID();
    await update(projectId, COMPANY_MASK, COMPANY);
    const { rows } = await harness.sql.query('SELECT to_jsonb(s) AS row FROM tax.tax_settings s WHERE project_id = $1', [projectId]);
    const text = JSON.stringify(rows[0].row);
    expect(text).not.toContain('457891234');
    expect(text).not.toContain('45-7891234');
    expect(rows[0].row.company_tax_id_key_id).toBe('test2026');
  });

  it('changes nothing, and stores no row, for an empty mask', async () => {
    const projectId = randomUUID();
    expect((await update(projectId, [], { requireTaxInfo: true })).requireTaxInfo).toBe(false);
    expect((await harness.sql.query('SELECT count(*)::int AS n FROM tax.tax_settings WHERE project_id = $1', [projectId])).rows[0].n).toBe(0);
  });

  const refusals: Array<[string, string, string[], TaxSettingsInput]> = [
    ['an EIN with a prefix the IRS does not assign', 'company_tax_id', ['company_tax_id'], { companyTaxId: '07-1234567' }],
    ['an SSN as the company tax id', 'company_tax_id', ['company_tax_id'], { companyTaxId: '123-45-6789' }],
    ['a malformed contact email', 'company_contact_email', ['company_contact_email'], { companyContactEmail: 'tax at example' }],
    [
      'a company address in an unknown country',
      'company_address.country',
      ['company_address'],
      { companyAddress: { ...COMPANY_ADDRESS, country: 'QQ' } },
    ],
    ['a company address without city', 'company_address.city', ['company_address'], { companyAddress: { ...COMPANY_ADDRESS, city: '' } }],
    [
      'a US company address without a state',
      'company_address.region',
      ['company_address'],
      { companyAddress: { ...COMPANY_ADDRESS, region: undefined } },
    ],
    ['an unknown W-8 expiry rule', 'w8_expiry_rule', ['w8_expiry_rule'], { w8ExpiryRule: 'five_years' }],
    ['an unset require_tax_info', 'require_tax_info', ['require_tax_info'], { requireTaxInfo: undefined }],
    ['a company name with control characters', 'company_legal_name', ['company_legal_name'], { companyLegalName: 'Acme\u0007' }],
    ['a company name over 200 characters', 'company_legal_name', ['company_legal_name'], { companyLegalName: 'A'.repeat(201) }],
    ['a field that is no setting', 'company_phone', ['company_phone'], {}],
  ];

  it.each(refusals)('refuses %s naming %s, with the valid fields of the same change, and changes nothing', async (_name, field, mask, input) => {
    const projectId = randomUUID();
    await update(projectId, ['require_tax_info', 'company_legal_name'], { requireTaxInfo: true, companyLegalName: 'Before' });
    const before = await harness.domain.settings.get(projectId);
    await expect(update(projectId, ['require_tax_info', ...mask], { requireTaxInfo: false, ...input })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: expect.arrayContaining([{ field, reason: expect.any(String) }]),
    });
    expect(await harness.domain.settings.get(projectId)).toEqual(before);
  });
});
