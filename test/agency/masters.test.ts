import { AttributionOutcome } from '../../gen/referral/agency/v1/enums';
import { createProject, mixedCase, randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { serviceClients, type ServiceClients } from '../helpers/rpc';
import type { TestStack } from '../helpers/stack';

const START = '2026-11-21T12:00:00.000Z';
const HOUR = 3_600_000;

/**
 * Master affiliates (§4.5) over HTTP: bodies, status codes and the Admin-only rule; the binding
 * rules and the moments are tested on the domain (test/medium/agency).
 */
describe('master affiliates over HTTP', () => {
  let stack: TestStack;
  let project: TestProject;
  let services: ServiceClients;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    services = serviceClients(stack);
  });
  afterAll(async () => {
    services.close();
    await stack.stop();
  });
  afterEach(() => stack.clock.set(START));

  const agencies = () => `/api/v1/projects/${project.id}/agencies`;
  const admin = () => ({ key: project.keys.admin });
  async function newAffiliate(name = 'Alice', code?: string) {
    const identifier = randomEvmAddress();
    const response = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
      ...admin(),
      body: { identifier, identifier_type: 'evm_address', name, code },
    });
    if (response.status !== 201) throw new Error(`affiliate creation failed: ${response.status} ${response.text}`);
    return response.body as { id: string; identifier: string };
  }
  async function newMaster(spread = 250) {
    const affiliate = await newAffiliate('Agency');
    const response = await stack.api.post(agencies(), { ...admin(), body: { user_identifier: affiliate.identifier, spread_bps: spread } });
    if (response.status !== 201) throw new Error(`designation failed: ${response.status} ${response.text}`);
    return affiliate;
  }

  it('designates a master (201) in the documented shape, lists it and reads it with earnings and spread history', async () => {
    const affiliate = await newAffiliate('Acme Agency');
    const response = await stack.api.post(agencies(), { ...admin(), body: { user_identifier: mixedCase(affiliate.identifier), spread_bps: 250 } });
    const detail = {
      id: affiliate.id,
      identifier: affiliate.identifier,
      identifier_type: 'evm_address',
      name: 'Acme Agency',
      status: 'active',
      spread_bps: 250,
      sub_affiliates_count: 0,
      referred_volume_usd: '0',
      designated_at: START,
      earnings: [],
      spread_history: [{ spread_bps: 250, valid_from: START, valid_to: null }],
    };
    expect(response).toMatchObject({ status: 201, body: { ...detail, unbound_from: null } });
    expect(await stack.api.get(`${agencies()}/${affiliate.id.toUpperCase()}`, admin())).toMatchObject({ status: 200, body: detail });
    const list = await stack.api.get(`${agencies()}?page_size=100`, admin());
    expect(list.status).toBe(200);
    const { spread_history: _history, ...item } = detail;
    expect(list.body.results).toContainEqual(item);
    expect(list.body).toMatchObject({ page: 1, page_size: 100, total_results: list.body.results.length });
    expect((await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${affiliate.identifier}`, admin())).body).toMatchObject({
      is_master: true,
      master: null,
    });
  });

  it('answers 404 AFFILIATE_NOT_FOUND, 409 ALREADY_MASTER, and 400 for a spread out of range or a stray field', async () => {
    expect(await stack.api.post(agencies(), { ...admin(), body: { user_identifier: randomEvmAddress(), spread_bps: 10 } })).toMatchObject({
      status: 404,
      body: { code: 'AFFILIATE_NOT_FOUND' },
    });
    const master = await newMaster();
    expect(await stack.api.post(agencies(), { ...admin(), body: { user_identifier: master.identifier, spread_bps: 10 } })).toMatchObject({
      status: 409,
      body: { code: 'ALREADY_MASTER' },
    });
    const sub = await newAffiliate();
    await stack.api.post(`${agencies()}/${master.id}/sub-affiliates`, { ...admin(), body: { user_identifiers: [sub.identifier] } });
    for (const body of [
      { user_identifier: sub.identifier, spread_bps: 10_001 },
      { user_identifier: sub.identifier, spread_bps: -1 },
      { user_identifier: sub.identifier, spread_bps: '250' },
      { user_identifier: sub.identifier },
      { user_identifier: sub.identifier, spread_bps: 5, role: 'master' },
    ]) {
      expect(await stack.api.post(agencies(), { ...admin(), body })).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    }
    expect(await stack.api.patch(`${agencies()}/${master.id}`, { ...admin(), body: { spread_bps: 12.5 } })).toMatchObject({ status: 400 });
  });

  it('designates a bound sub-affiliate (201): unbound from its master in the same request, both histories saying why', async () => {
    const old = await newMaster();
    const [sub, sibling] = [await newAffiliate('Sub'), await newAffiliate('Sibling')];
    expect(
      (
        await stack.api.post(`${agencies()}/${old.id}/sub-affiliates`, {
          ...admin(),
          body: { user_identifiers: [sub.identifier, sibling.identifier] },
        })
      ).status,
    ).toBe(200);
    stack.clock.advance(HOUR);
    const at = new Date(Date.parse(START) + HOUR).toISOString();

    const response = await stack.api.post(agencies(), { ...admin(), body: { user_identifier: mixedCase(sub.identifier), spread_bps: 75 } });
    expect(response).toMatchObject({
      status: 201,
      body: {
        id: sub.id,
        spread_bps: 75,
        sub_affiliates_count: 0,
        designated_at: at,
        unbound_from: { id: old.id, identifier: old.identifier, identifier_type: 'evm_address' },
      },
    });
    expect((await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${sub.identifier}`, admin())).body).toMatchObject({
      is_master: true,
      master: null,
    });
    expect((await stack.api.get(`${agencies()}/${old.id}`, admin())).body).toMatchObject({ sub_affiliates_count: 1 });
    const former = await stack.api.get(`${agencies()}/${old.id}/sub-affiliates?bound=false`, admin());
    expect(former.body.results).toEqual([expect.objectContaining({ id: sub.id, bound: false, unbound_at: at })]);

    const historyOf = async (identifier: string) =>
      (await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${identifier}/history`, admin())).body.results;
    const ref = (affiliate: { id: string; identifier: string }) => ({
      id: affiliate.id,
      identifier: affiliate.identifier,
      identifier_type: 'evm_address',
    });
    expect((await historyOf(sub.identifier)).slice(0, 2)).toEqual([
      { type: 'master_designated', at, data: { spread_bps: 75, unbound_from_master: ref(old), by_api_key_id: expect.any(String) } },
      { type: 'unbound_from_master', at, data: { master: ref(old), master_removed: false, became_master: true, by_api_key_id: expect.any(String) } },
    ]);
    expect((await historyOf(old.identifier))[0]).toEqual({
      type: 'sub_affiliate_unbound',
      at,
      data: { affiliate: ref(sub), master_removed: false, became_master: true, by_api_key_id: expect.any(String) },
    });
  });

  it('binds sub-affiliates (200, one result each), counts them, shows the master on each, lists and unbinds them', async () => {
    const master = await newMaster();
    const [bob, carol] = [await newAffiliate('Bob'), await newAffiliate('Carol')];
    const bound = await stack.api.post(`${agencies()}/${master.id}/sub-affiliates`, {
      ...admin(),
      body: { user_identifiers: [bob.identifier, mixedCase(carol.identifier)] },
    });
    expect(bound.status).toBe(200);
    expect(bound.body.results).toEqual([
      { id: bob.id, identifier: bob.identifier, identifier_type: 'evm_address', bound: true },
      { id: carol.id, identifier: carol.identifier, identifier_type: 'evm_address', bound: true },
    ]);
    expect(bound.body.agency).toMatchObject({ id: master.id, sub_affiliates_count: 2 });
    expect(
      (await stack.api.post(`${agencies()}/${master.id}/sub-affiliates`, { ...admin(), body: { user_identifiers: [bob.identifier] } })).body.results,
    ).toEqual([expect.objectContaining({ id: bob.id, bound: false })]);
    expect((await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${bob.identifier}`, admin())).body).toMatchObject({
      master: { id: master.id, identifier: master.identifier, identifier_type: 'evm_address' },
      is_master: false,
    });

    const subs = await stack.api.get(`${agencies()}/${master.id}/sub-affiliates?sort_by=referred_volume`, admin());
    expect(subs).toMatchObject({ status: 200, body: { total_results: 2, page: 1, page_size: 25 } });
    expect(subs.body.results).toContainEqual({
      id: bob.id,
      identifier: bob.identifier,
      identifier_type: 'evm_address',
      name: 'Bob',
      status: 'active',
      bound: true,
      bound_at: START,
      unbound_at: null,
      referred_volume_usd: '0',
      referred_conversions: 0,
      agency_earnings: [],
      volume_usd: '0',
      revenue_usd: '0',
      conversions: 0,
      earnings: [],
    });
    expect(
      (await stack.api.get(`${agencies()}/${master.id}/sub-affiliates?sort_by=name`, admin())).body.results.map((sub: { name: string }) => sub.name),
    ).toEqual(['Bob', 'Carol']);
    expect(await stack.api.get(`${agencies()}/${master.id}/sub-affiliates?sort_by=volume`, admin())).toMatchObject({ status: 400 });

    expect(await stack.api.delete(`${agencies()}/${master.id}/sub-affiliates/${mixedCase(bob.identifier)}`, admin())).toMatchObject({ status: 204 });
    expect(await stack.api.delete(`${agencies()}/${master.id}/sub-affiliates/${bob.identifier}`, admin())).toMatchObject({
      status: 404,
      body: { code: 'SUB_AFFILIATE_NOT_FOUND' },
    });
    expect((await stack.api.get(`${agencies()}/${master.id}`, admin())).body.sub_affiliates_count).toBe(1);
    // Bob stays listed as a former sub-affiliate (what it brought stays counted); bound=true lists those bound now.
    const after = await stack.api.get(`${agencies()}/${master.id}/sub-affiliates?sort_by=name`, admin());
    expect(after.body.results.map((sub: { name: string; bound: boolean }) => [sub.name, sub.bound])).toEqual([
      ['Bob', false],
      ['Carol', true],
    ]);
    expect((await stack.api.get(`${agencies()}/${master.id}/sub-affiliates?bound=true`, admin())).body.total_results).toBe(1);
  });

  it('refuses a bind as a whole: 409 ALREADY_BOUND naming each refused identifier, 404 for non-affiliates, 413 past 100', async () => {
    const [first, second] = [await newMaster(), await newMaster()];
    const taken = await newAffiliate();
    await stack.api.post(`${agencies()}/${first.id}/sub-affiliates`, { ...admin(), body: { user_identifiers: [taken.identifier] } });
    const free = await newAffiliate();
    const refused = await stack.api.post(`${agencies()}/${second.id}/sub-affiliates`, {
      ...admin(),
      body: { user_identifiers: [free.identifier, taken.identifier] },
    });
    expect(refused).toMatchObject({
      status: 409,
      body: { status: 409, code: 'ALREADY_BOUND', details: [{ field: 'user_identifiers[1]', reason: expect.stringContaining(first.id) }] },
    });
    expect((await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${free.identifier}`, admin())).body.master).toBeNull();
    expect(
      await stack.api.post(`${agencies()}/${second.id}/sub-affiliates`, { ...admin(), body: { user_identifiers: [randomEvmAddress()] } }),
    ).toMatchObject({
      status: 404,
      body: { code: 'AFFILIATE_NOT_FOUND', details: [{ field: 'user_identifiers[0]' }] },
    });
    expect(
      await stack.api.post(`${agencies()}/${second.id}/sub-affiliates`, {
        ...admin(),
        body: { user_identifiers: Array.from({ length: 101 }, randomEvmAddress) },
      }),
    ).toMatchObject({ status: 413, body: { code: 'TOO_MANY_USERS' } });
    expect(await stack.api.post(`${agencies()}/${second.id}/sub-affiliates`, { ...admin(), body: { user_identifiers: ['0x12'] } })).toMatchObject({
      status: 400,
      body: { details: [{ field: 'user_identifiers[0]' }] },
    });
    expect(
      await stack.api.post(`${agencies()}/${free.id}/sub-affiliates`, { ...admin(), body: { user_identifiers: [taken.identifier] } }),
    ).toMatchObject({
      status: 404,
      body: { code: 'AGENCY_NOT_FOUND' },
    });
  });

  it('changes the spread and removes master status; attribution before each change keeps what held then (ResolveAttribution)', async () => {
    const master = await newMaster(300);
    const sub = await newAffiliate('Sub', `sub${Date.now().toString(36)}`);
    const user = randomEvmAddress();
    const referred = await stack.api.post('/api/v1/referrals', {
      key: project.keys.service,
      body: {
        user_identifier: user,
        user_identifier_type: 'evm_address',
        code: (await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${sub.identifier}`, admin())).body.codes[0].code,
      },
    });
    expect(referred.status).toBe(201);
    await stack.api.post(`${agencies()}/${master.id}/sub-affiliates`, { ...admin(), body: { user_identifiers: [sub.identifier] } });
    stack.clock.advance(HOUR);
    const patched = await stack.api.patch(`${agencies()}/${master.id}`, { ...admin(), body: { spread_bps: 450 } });
    expect(patched).toMatchObject({
      status: 200,
      body: { spread_bps: 450, spread_history: [{ spread_bps: 450, valid_to: null }, { spread_bps: 300 }] },
    });
    stack.clock.advance(HOUR);
    expect(await stack.api.delete(`${agencies()}/${master.id}`, admin())).toMatchObject({
      status: 200,
      body: { id: master.id, released_sub_affiliates: 1 },
    });

    expect(await stack.api.get(`${agencies()}/${master.id}`, admin())).toMatchObject({ status: 404, body: { code: 'AGENCY_NOT_FOUND' } });
    expect((await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${sub.identifier}`, admin())).body).toMatchObject({
      master: null,
      is_master: false,
    });
    expect((await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${master.identifier}`, admin())).body).toMatchObject({ is_master: false });

    const moments = [START, new Date(Date.parse(START) + HOUR).toISOString(), new Date(Date.parse(START) + 2 * HOUR).toISOString()];
    const { results } = await services.agency.batchResolveAttribution({
      projectId: project.id,
      items: moments.map((moment) => ({ user: { identifier: user, identifierType: 'evm_address' }, at: new Date(moment) })),
    });
    expect(results.map((result) => [result.outcome, result.master?.id ?? null, result.spreadBps])).toEqual([
      [AttributionOutcome.ATTRIBUTED, master.id, 300],
      [AttributionOutcome.ATTRIBUTED, master.id, 450],
      [AttributionOutcome.ATTRIBUTED, null, 0],
    ]);
    expect(results[0]!.master).toEqual({ id: master.id, identifier: master.identifier, identifierType: 'evm_address' });
  });

  it('reserves every master path to admin keys: read_only and service_role get 403, another project’s admin 404', async () => {
    const master = await newMaster();
    const other = await createProject(stack, 'Other');
    const paths: Array<[string, string, unknown?]> = [
      ['GET', agencies()],
      ['GET', `${agencies()}/${master.id}`],
      ['GET', `${agencies()}/${master.id}/sub-affiliates`],
      ['POST', agencies(), { user_identifier: master.identifier, spread_bps: 1 }],
      ['PATCH', `${agencies()}/${master.id}`, { spread_bps: 1 }],
      ['POST', `${agencies()}/${master.id}/sub-affiliates`, { user_identifiers: [randomEvmAddress()] }],
      ['DELETE', `${agencies()}/${master.id}/sub-affiliates/${randomEvmAddress()}`],
      ['DELETE', `${agencies()}/${master.id}`],
    ];
    for (const [method, path, body] of paths) {
      for (const key of [project.keys.readOnly, project.keys.service]) {
        expect(await stack.api.request(method, path, { key, body })).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
      }
      expect(await stack.api.request(method, path, { key: other.keys.admin, body })).toMatchObject({
        status: 404,
        body: { code: 'PROJECT_NOT_FOUND' },
      });
    }
    expect((await stack.api.get(`${agencies()}/${master.id}`, admin())).body.spread_bps).toBe(250);
  });
});
