import { createProject, mixedCase, randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { taxEventsProjected } from '../helpers/agency-projections';
import type { TestStack } from '../helpers/stack';
import { newWallet, signIn } from '../helpers/wallet';
import { requireTaxInfo, signedInAffiliate, w9 } from '../tax/tax-forms';

const START = '2026-11-21T12:00:00.000Z';

/**
 * Affiliate administration and the portal's codes over HTTP: status codes, bodies and who may call.
 * The many-case rules (code formats, limits, filters) are tested on the domain in test/medium/agency.
 */
describe('affiliates over HTTP', () => {
  let stack: TestStack;
  let project: TestProject;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
  });
  afterAll(() => stack.stop());

  const base = () => `/api/v1/projects/${project.id}/affiliates`;
  const create = (body: Record<string, unknown>, key = project.keys.admin) => stack.api.post(base(), { key, body });
  const newAffiliate = async (body: Record<string, unknown> = {}) => {
    const identifier = randomEvmAddress();
    const response = await create({ identifier, identifier_type: 'evm_address', name: 'Alice', ...body });
    if (response.status !== 201) throw new Error(`affiliate creation failed: ${response.status} ${response.text}`);
    return { identifier, body: response.body };
  };

  it('creates an affiliate (201) in the documented shape, with its first code', async () => {
    const identifier = randomEvmAddress();
    const response = await create({
      identifier: mixedCase(identifier),
      identifier_type: 'evm_address',
      name: 'Alice',
      region: 'us',
      code: 'Alice2026',
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      identifier,
      identifier_type: 'evm_address',
      name: 'Alice',
      region: 'US',
      status: 'active',
      suspended_at: null,
      suspension_reason: null,
      flagged_at: null,
      flag_reason: null,
      codes: [{ code: 'Alice2026', uses: 0, created_at: START, rebate_rate: null, clicks: null }],
      master: null,
      is_master: false,
      current_tier: null,
      active_tier: null,
      tier_protection: null,
      joined_at: START,
      updated_at: START,
    });
  });

  it('answers 409 AFFILIATE_EXISTS for the same user, 409 CODE_IN_USE for a taken code in any case, and 400 naming bad fields', async () => {
    const { identifier } = await newAffiliate({ code: 'TakenCode' });
    expect(await create({ identifier, identifier_type: 'evm_address', name: 'Again' })).toMatchObject({
      status: 409,
      body: { code: 'AFFILIATE_EXISTS' },
    });
    const late = randomEvmAddress();
    expect(await create({ identifier: late, identifier_type: 'evm_address', name: 'Bob', code: 'takencode' })).toMatchObject({
      status: 409,
      body: { code: 'CODE_IN_USE', details: [{ field: 'code', reason: expect.any(String) }] },
    });
    expect((await stack.api.get(`${base()}/${late}`, { key: project.keys.admin })).status).toBe(404);
    const bad = await create({ identifier: randomEvmAddress(), identifier_type: 'evm_address', name: '', code: 'no', region: 'XX' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_FAILED');
    expect(bad.body.details.map((detail: { field: string }) => detail.field).sort()).toEqual(['code', 'name', 'region']);
    expect((await create({ identifier: randomEvmAddress(), identifier_type: 'evm_address', name: 'A', status: 'suspended' })).body.details).toEqual([
      { field: 'status', reason: 'is not a known field' },
    ]);
  });

  it('reads an affiliate by its identifier in any case (identifier_type defaults to evm_address), and 404 for a non-affiliate', async () => {
    const { identifier, body } = await newAffiliate();
    expect(await stack.api.get(`${base()}/${mixedCase(identifier)}`, { key: project.keys.readOnly })).toMatchObject({ status: 200, body });
    expect(await stack.api.get(`${base()}/${identifier}?identifier_type=evm_address`, { key: project.keys.admin })).toMatchObject({
      status: 200,
      body,
    });
    expect(await stack.api.get(`${base()}/${randomEvmAddress()}`, { key: project.keys.admin })).toMatchObject({
      status: 404,
      body: { code: 'AFFILIATE_NOT_FOUND' },
    });
    expect(await stack.api.get(`${base()}/someone@example.com?identifier_type=email`, { key: project.keys.admin })).toMatchObject({ status: 404 });
  });

  it('changes name and region with PATCH, region null clearing it', async () => {
    const { identifier } = await newAffiliate({ region: 'DE' });
    stack.clock.advance(60_000);
    const renamed = await stack.api.patch(`${base()}/${identifier}`, { key: project.keys.admin, body: { name: 'Alice Cooper' } });
    expect(renamed).toMatchObject({ status: 200, body: { name: 'Alice Cooper', region: 'DE', updated_at: stack.clock.now().toISOString() } });
    expect(await stack.api.patch(`${base()}/${identifier}`, { key: project.keys.admin, body: { region: null } })).toMatchObject({
      status: 200,
      body: { name: 'Alice Cooper', region: null },
    });
    expect(await stack.api.patch(`${base()}/${identifier}`, { key: project.keys.admin, body: { name: ' ' } })).toMatchObject({ status: 400 });
    expect(await stack.api.patch(`${base()}/${randomEvmAddress()}`, { key: project.keys.admin, body: { name: 'X' } })).toMatchObject({ status: 404 });
  });

  it('suspends with a reason and reactivates, answering 409 for the same change twice', async () => {
    const { identifier } = await newAffiliate();
    const suspended = await stack.api.post(`${base()}/${identifier}/suspend`, { key: project.keys.admin, body: { reason: 'Fraudulent traffic' } });
    expect(suspended).toMatchObject({
      status: 200,
      body: { status: 'suspended', suspended_at: stack.clock.now().toISOString(), suspension_reason: 'Fraudulent traffic' },
    });
    expect(await stack.api.post(`${base()}/${identifier}/suspend`, { key: project.keys.admin, body: { reason: 'again' } })).toMatchObject({
      status: 409,
      body: { code: 'AFFILIATE_ALREADY_SUSPENDED' },
    });
    expect(await stack.api.post(`${base()}/${identifier}/suspend`, { key: project.keys.admin, body: {} })).toMatchObject({ status: 400 });
    expect(await stack.api.post(`${base()}/${identifier}/reactivate`, { key: project.keys.admin })).toMatchObject({
      status: 200,
      body: { status: 'active', suspended_at: null, suspension_reason: null },
    });
    expect(await stack.api.post(`${base()}/${identifier}/reactivate`, { key: project.keys.admin })).toMatchObject({
      status: 409,
      body: { code: 'AFFILIATE_NOT_SUSPENDED' },
    });
  });

  it('adds codes as an admin (201), refusing a taken one (409) and a malformed one (400)', async () => {
    const { identifier } = await newAffiliate({ code: 'first_code' });
    const added = await stack.api.post(`${base()}/${identifier}/codes`, { key: project.keys.admin, body: { code: 'Second-Code' } });
    expect(added).toMatchObject({ status: 201, body: { codes: [{ code: 'first_code' }, { code: 'Second-Code', uses: 0 }] } });
    expect(await stack.api.post(`${base()}/${identifier}/codes`, { key: project.keys.admin, body: { code: 'FIRST_CODE' } })).toMatchObject({
      status: 409,
      body: { code: 'CODE_IN_USE' },
    });
    expect(await stack.api.post(`${base()}/${identifier}/codes`, { key: project.keys.admin, body: { code: 'has space' } })).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED', details: [{ field: 'code', reason: expect.any(String) }] },
    });
  });

  it('lets a signed-in affiliate add its own code in the portal, and answers 404 to a wallet that is no affiliate', async () => {
    const wallet = await newWallet();
    await create({ identifier: wallet.checksumAddress, identifier_type: 'evm_address', name: 'Wally' });
    const token = await signIn(stack, wallet);
    const portal = `/api/v1/projects/${project.id}/affiliate-portal/codes`;
    const added = await stack.api.post(portal, { key: token, body: { code: 'wally_code' } });
    expect(added).toMatchObject({ status: 201, body: { identifier: wallet.address, codes: [{ code: 'wally_code', uses: 0 }] } });
    const stranger = await signIn(stack, await newWallet());
    expect(await stack.api.post(portal, { key: stranger, body: { code: 'stranger_code' } })).toMatchObject({
      status: 404,
      body: { code: 'AFFILIATE_NOT_FOUND' },
    });
    expect(await stack.api.post(portal, { key: project.keys.admin, body: { code: 'admin_code' } })).toMatchObject({
      status: 401,
      body: { code: 'WRONG_CREDENTIAL_KIND' },
    });
  });

  describe('the list', () => {
    let listed: TestProject;
    let taxed: { address: string };
    beforeAll(async () => {
      listed = await createProject(stack, 'Listed program');
      await requireTaxInfo(stack, listed);
      const add = (body: Record<string, unknown>) => stack.api.post(`/api/v1/projects/${listed.id}/affiliates`, { key: listed.keys.admin, body });
      const affiliate = await signedInAffiliate(stack, listed);
      taxed = { address: affiliate.wallet.address };
      await add({ identifier: taxed.address, identifier_type: 'evm_address', name: 'Taxed Tina', region: 'US' });
      await affiliate.submit(w9());
      for (const [index, name] of ['Ann', 'Ben', 'Cleo'].entries()) {
        stack.clock.advance(1_000);
        await add({ identifier: randomEvmAddress(), identifier_type: 'evm_address', name, region: index === 1 ? 'BR' : 'US' });
      }
      // The list's tax_status comes from the agency's projection of the tax events: wait for it to apply them.
      await taxEventsProjected(stack);
    });

    const list = (query = '', key = listed.keys.admin) => stack.api.get(`/api/v1/projects/${listed.id}/affiliates${query}`, { key });

    it('lists newest first in the standard shape, each item with its tax status', async () => {
      const response = await list();
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ total_results: 4, page: 1, page_size: 25 });
      expect(response.body.results.map((item: { name: string; tax_status: string }) => [item.name, item.tax_status])).toEqual([
        ['Cleo', 'not_submitted'],
        ['Ben', 'not_submitted'],
        ['Ann', 'not_submitted'],
        ['Taxed Tina', 'submitted'],
      ]);
      expect(response.body.results[3]).toMatchObject({ identifier: taxed.address, status: 'active', codes: [], master: null, is_master: false });
    });

    it('filters by status, region and q, and pages', async () => {
      const names = async (query: string) => (await list(query)).body.results.map((item: { name: string }) => item.name);
      expect(await names('?region=br')).toEqual(['Ben']);
      expect(await names('?q=ta')).toEqual(['Taxed Tina']);
      expect(await names('?status=suspended')).toEqual([]);
      expect(await names('?status=active&region=US&page=2&page_size=1')).toEqual(['Ann']);
      expect(await list('?status=asleep')).toMatchObject({ status: 400, body: { details: [{ field: 'status' }] } });
      expect(await list('?page_size=101')).toMatchObject({ status: 400 });
    });

    it('is readable with a read_only key, not with a service_role key, and is another project’s 404', async () => {
      expect((await list('', listed.keys.readOnly)).status).toBe(200);
      expect(await list('', listed.keys.service)).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
      expect(await list('', project.keys.admin)).toMatchObject({ status: 404, body: { code: 'PROJECT_NOT_FOUND' } });
    });
  });

  it('keeps writes for admin keys: read_only and service_role get 403, and nothing changes', async () => {
    const identifier = randomEvmAddress();
    for (const key of [project.keys.readOnly, project.keys.service]) {
      expect(await create({ identifier, identifier_type: 'evm_address', name: 'Nope' }, key)).toMatchObject({ status: 403 });
    }
    const { identifier: existing } = await newAffiliate();
    expect(await stack.api.post(`${base()}/${existing}/suspend`, { key: project.keys.readOnly, body: { reason: 'x' } })).toMatchObject({
      status: 403,
    });
    expect(await stack.api.get(`${base()}/${existing}`, { key: project.keys.service })).toMatchObject({ status: 403 });
    expect((await stack.api.get(`${base()}/${identifier}`, { key: project.keys.admin })).status).toBe(404);
    expect((await stack.api.get(`${base()}/${existing}`, { key: project.keys.admin })).body.status).toBe('active');
  });
});
