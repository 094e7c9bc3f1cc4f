import { createProject, type TestProject } from '../helpers/fixtures';
import { startStack, type TestStack } from '../helpers/stack';
import { adminPaths } from './tax-forms';

const COMPANY = {
  company_legal_name: 'Referral Labs Inc.',
  company_address: { line1: '500 Market St', line2: 'Floor 3', city: 'San Francisco', region: 'CA', postal_code: '94105', country: 'US' },
  company_tax_id: '45-7891234',
  company_contact_email: 'Tax@Referral-Labs.example',
};

describe('tax settings (GET|PATCH /api/v1/projects/:projectId/tax-settings)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.stop());

  const settingsPath = (project: TestProject) => adminPaths(project, '0x').settings;
  const get = (project: TestProject, key = project.keys.admin) => stack.api.get(settingsPath(project), { key });
  const patch = (project: TestProject, body: unknown, key = project.keys.admin) => stack.api.patch(settingsPath(project), { key, body });

  it('starts with the defaults: tax info not required, W-8s valid 3 years from approval (the default, not chosen), no company details', async () => {
    const project = await createProject(stack);
    const response = await get(project);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      require_tax_info: false,
      company_legal_name: null,
      company_address: null,
      company_tax_id: null,
      company_contact_email: null,
      w8_expiry_rule: 'three_years_from_approval',
      w8_expiry_rule_chosen: false,
      updated_at: null,
    });
  });

  it('changes only the fields present, and shows the company EIN masked', async () => {
    const project = await createProject(stack);
    const first = await patch(project, { require_tax_info: true });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      require_tax_info: true,
      w8_expiry_rule: 'three_years_from_approval',
      w8_expiry_rule_chosen: false,
      company_legal_name: null,
      updated_at: '2026-11-21T12:00:00.000Z',
    });

    stack.clock.advance(60_000);
    const second = await patch(project, { ...COMPANY, w8_expiry_rule: 'irs_calendar' });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({
      require_tax_info: true,
      company_legal_name: 'Referral Labs Inc.',
      company_address: COMPANY.company_address,
      company_tax_id: '*****1234',
      company_contact_email: 'tax@referral-labs.example',
      w8_expiry_rule: 'irs_calendar',
      w8_expiry_rule_chosen: true,
      updated_at: '2026-11-21T12:01:00.000Z',
    });
    expect((await get(project)).body).toEqual(second.body);
  });

  it('keeps a chosen W-8 rule over other changes, and follows the default again after w8_expiry_rule: null', async () => {
    const project = await createProject(stack);
    expect((await patch(project, { w8_expiry_rule: 'three_years' })).body).toMatchObject({
      w8_expiry_rule: 'three_years',
      w8_expiry_rule_chosen: true,
    });
    expect((await patch(project, { require_tax_info: true })).body).toMatchObject({ w8_expiry_rule: 'three_years', w8_expiry_rule_chosen: true });
    expect((await patch(project, { w8_expiry_rule: null })).body).toMatchObject({
      w8_expiry_rule: 'three_years_from_approval',
      w8_expiry_rule_chosen: false,
    });
    expect((await get(project)).body).toMatchObject({
      require_tax_info: true,
      w8_expiry_rule: 'three_years_from_approval',
      w8_expiry_rule_chosen: false,
    });
  });

  it('clears a company field set to null and leaves the rest', async () => {
    const project = await createProject(stack);
    await patch(project, COMPANY);
    const cleared = await patch(project, { company_tax_id: null, company_address: null });
    expect(cleared.body).toMatchObject({ company_tax_id: null, company_address: null, company_legal_name: 'Referral Labs Inc.' });
  });

  // Each rule of a setting is tested on the domain (test/medium/tax/settings.test.ts): here what the
  // HTTP schema refuses before the service, and one refusal of the service, each a 400 changing nothing.
  const refusals: Array<[string, string, Record<string, unknown>]> = [
    ['a require_tax_info that is not a boolean', 'require_tax_info', { require_tax_info: 'yes' }],
    ['a require_tax_info of null', 'require_tax_info', { require_tax_info: null }],
    ['an unknown W-8 expiry rule', 'w8_expiry_rule', { w8_expiry_rule: 'five_years' }],
    ['an unknown field', 'company_phone', { company_phone: '555' }],
    ['an EIN with a prefix the IRS does not assign (the service)', 'company_tax_id', { company_tax_id: '07-1234567' }],
  ];

  it.each(refusals)('refuses %s with 400 naming %s, changing nothing', async (_name, field, body) => {
    const project = await createProject(stack);
    await patch(project, { require_tax_info: true, company_legal_name: 'Before' });
    const before = (await get(project)).body;

    const response = await patch(project, { require_tax_info: false, ...body });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(response.body.details).toEqual(expect.arrayContaining([{ field, reason: expect.any(String) }]));
    expect((await get(project)).body).toEqual(before);
  });

  it('needs an admin key of the project: read_only and service keys 403, another project’s key 404, none 401', async () => {
    const project = await createProject(stack);
    const other = await createProject(stack);
    expect((await get(project, project.keys.readOnly)).status).toBe(403);
    expect((await patch(project, { require_tax_info: true }, project.keys.service)).status).toBe(403);
    const foreign = await patch(project, { require_tax_info: true }, other.keys.admin);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('PROJECT_NOT_FOUND');
    expect((await get(project, other.keys.admin)).status).toBe(404);
    expect((await stack.api.get(settingsPath(project))).status).toBe(401);
    expect((await get(project)).body.require_tax_info).toBe(false);
  });
});
