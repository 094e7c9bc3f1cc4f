import { createProject, randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { type ServiceClients, serviceClients } from '../helpers/rpc';
import type { TestStack } from '../helpers/stack';
import { newWallet, signIn } from '../helpers/wallet';

const START = '2026-11-21T12:00:00.000Z';
const MINUTE = 60_000;

/**
 * The affiliate status `flagged` over HTTP (docs/affiliates.md#flagged-affiliates): flag and unflag,
 * both idempotent, the detail's flag fields, the list's status filter, the history entries, how it
 * meets suspension, and the attribution the claim service reads (affiliate_flagged).
 */
describe('flagged affiliates over HTTP', () => {
  let stack: TestStack;
  let project: TestProject;
  let clients: ServiceClients;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    clients = serviceClients(stack);
    stack.clock.set(START);
  });
  afterAll(async () => {
    clients.close();
    await stack.stop();
  });

  const admin = () => ({ key: project.keys.admin });
  const base = () => `/api/v1/projects/${project.id}/affiliates`;
  const flag = (identifier: string, body: Record<string, unknown>, key = project.keys.admin) =>
    stack.api.post(`${base()}/${identifier}/flag`, { key, body });
  const unflag = (identifier: string, key = project.keys.admin) => stack.api.post(`${base()}/${identifier}/unflag`, { key });
  const newAffiliate = async (name: string, code?: string) => {
    const identifier = randomEvmAddress();
    const response = await stack.api.post(base(), { ...admin(), body: { identifier, identifier_type: 'evm_address', name, code } });
    if (response.status !== 201) throw new Error(`affiliate creation failed: ${response.status} ${response.text}`);
    return identifier;
  };

  it('flags with a reason, keeps the first flag when flagged again, and unflags, each idempotent', async () => {
    const identifier = await newAffiliate('Fiona');
    stack.clock.advance(MINUTE);
    const flaggedAt = stack.clock.now().toISOString();
    expect(await flag(identifier, { reason: 'Many conversions from one IP' })).toMatchObject({
      status: 200,
      body: { status: 'flagged', flagged_at: flaggedAt, flag_reason: 'Many conversions from one IP', suspended_at: null },
    });
    stack.clock.advance(MINUTE);
    expect(await flag(identifier, { reason: 'another reason' })).toMatchObject({
      status: 200,
      body: { status: 'flagged', flagged_at: flaggedAt, flag_reason: 'Many conversions from one IP' },
    });
    expect(await stack.api.get(`${base()}/${identifier}`, admin())).toMatchObject({
      status: 200,
      body: { status: 'flagged', flagged_at: flaggedAt, flag_reason: 'Many conversions from one IP' },
    });

    stack.clock.advance(MINUTE);
    expect(await unflag(identifier)).toMatchObject({ status: 200, body: { status: 'active', flagged_at: null, flag_reason: null } });
    expect(await unflag(identifier)).toMatchObject({ status: 200, body: { status: 'active', flagged_at: null, flag_reason: null } });

    const history = await stack.api.get(`${base()}/${identifier}/history`, admin());
    expect(history.body.results.slice(0, 2)).toEqual([
      {
        type: 'unflagged',
        at: '2026-11-21T12:03:00.000Z',
        data: { flag_reason: 'Many conversions from one IP', flagged_at: flaggedAt, suspended: false, by_api_key_id: project.keyIds.admin },
      },
      { type: 'flagged', at: flaggedAt, data: { reason: 'Many conversions from one IP', by_api_key_id: project.keyIds.admin } },
    ]);
    expect(history.body.total_results).toBe(3);
  });

  it('refuses a missing, empty or too long reason (400 naming it), an unknown affiliate (404), and non-admin keys (403), changing nothing', async () => {
    const identifier = await newAffiliate('Gus');
    for (const body of [{}, { reason: '' }, { reason: ' ' }, { reason: 'x'.repeat(501) }]) {
      expect(await flag(identifier, body)).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED', details: [{ field: 'reason' }] } });
    }
    expect(await flag(identifier, { reason: 'ok', extra: 1 })).toMatchObject({ status: 400 });
    expect(await flag(randomEvmAddress(), { reason: 'ok' })).toMatchObject({ status: 404, body: { code: 'AFFILIATE_NOT_FOUND' } });
    expect(await unflag(randomEvmAddress())).toMatchObject({ status: 404, body: { code: 'AFFILIATE_NOT_FOUND' } });
    for (const key of [project.keys.readOnly, project.keys.service]) {
      expect(await flag(identifier, { reason: 'ok' }, key)).toMatchObject({ status: 403 });
      expect(await unflag(identifier, key)).toMatchObject({ status: 403 });
    }
    expect((await flag(identifier, { reason: 'x'.repeat(500) })).body).toMatchObject({ status: 'flagged', flag_reason: 'x'.repeat(500) });
  });

  it('meets suspension: a suspended affiliate cannot be flagged (409), suspending a flagged one ends its flag', async () => {
    const identifier = await newAffiliate('Hal');
    expect((await flag(identifier, { reason: 'odd traffic' })).status).toBe(200);
    stack.clock.advance(MINUTE);
    expect(await stack.api.post(`${base()}/${identifier}/suspend`, { ...admin(), body: { reason: 'confirmed fraud' } })).toMatchObject({
      status: 200,
      body: { status: 'suspended', suspension_reason: 'confirmed fraud', flagged_at: null, flag_reason: null },
    });
    expect(await flag(identifier, { reason: 'again' })).toMatchObject({ status: 409, body: { code: 'AFFILIATE_SUSPENDED' } });
    expect(await unflag(identifier)).toMatchObject({ status: 200, body: { status: 'suspended' } });
    const history = await stack.api.get(`${base()}/${identifier}/history`, admin());
    expect(history.body.results.map((entry: { type: string }) => entry.type).slice(0, 3)).toEqual(['suspended', 'unflagged', 'flagged']);
    expect(history.body.results[1].data).toMatchObject({ flag_reason: 'odd traffic', suspended: true });
    expect((await stack.api.post(`${base()}/${identifier}/reactivate`, admin())).body).toMatchObject({ status: 'active', flagged_at: null });
  });

  it('shows the affiliate’s own wallet that it is flagged, never the admin’s reason', async () => {
    const wallet = await newWallet();
    expect(
      (await stack.api.post(base(), { ...admin(), body: { identifier: wallet.checksumAddress, identifier_type: 'evm_address', name: 'Wendy' } }))
        .status,
    ).toBe(201);
    expect((await flag(wallet.address, { reason: 'suspected self-referral ring' })).body.flag_reason).toBe('suspected self-referral ring');
    const token = await signIn(stack, wallet);
    const added = await stack.api.post(`/api/v1/projects/${project.id}/affiliate-portal/codes`, { key: token, body: { code: 'wendy_code' } });
    expect(added).toMatchObject({ status: 201, body: { status: 'flagged', flagged_at: expect.any(String), flag_reason: null } });
    expect(added.text).not.toContain('self-referral');
  });

  it('filters the list by status flagged', async () => {
    const listed = await startProjectWith(['Ivy', 'Jon', 'Kim']);
    expect((await flagIn(listed, 'Jon')).status).toBe(200);
    const names = async (status: string) =>
      (await stack.api.get(`/api/v1/projects/${listed.id}/affiliates?status=${status}`, { key: listed.key })).body.results.map(
        (item: { name: string }) => item.name,
      );
    expect(await names('flagged')).toEqual(['Jon']);
    expect(await names('active')).toEqual(['Kim', 'Ivy']);
    const bySort = await stack.api.get(`/api/v1/projects/${listed.id}/affiliates?status=flagged&sort_by=volume_usd`, { key: listed.key });
    expect(bySort.body).toMatchObject({ total_results: 1, results: [{ name: 'Jon', status: 'flagged', flag_reason: 'check' }] });
  });

  it('tells the claim service whether the referring affiliate is flagged now, with the referral’s moment', async () => {
    const identifier = await newAffiliate('Lea', 'lea_code');
    const referred = randomEvmAddress();
    const referredAt = stack.clock.now();
    expect(
      (
        await stack.api.post('/api/v1/referrals', {
          key: project.keys.service,
          body: { user_identifier: referred, user_identifier_type: 'evm_address', code: 'lea_code' },
        })
      ).status,
    ).toBe(201);
    const resolve = async () =>
      (
        await clients.agency.batchResolveAttribution({
          projectId: project.id,
          items: [{ user: { identifier: referred, identifierType: 'evm_address' }, at: new Date(referredAt.getTime() + MINUTE) }],
        })
      ).results[0];
    expect(await resolve()).toMatchObject({ affiliateFlagged: false, referredAt });
    await flag(identifier, { reason: 'review' });
    expect(await resolve()).toMatchObject({ affiliateFlagged: true, referredAt });
    await unflag(identifier);
    expect(await resolve()).toMatchObject({ affiliateFlagged: false });
  });

  /** A project of its own with these affiliates, created a minute apart (the list's default order is newest first). */
  async function startProjectWith(names: string[]) {
    const created = await createProject(stack);
    const identifiers = new Map<string, string>();
    for (const name of names) {
      stack.clock.advance(MINUTE);
      const identifier = randomEvmAddress();
      await stack.api.post(`/api/v1/projects/${created.id}/affiliates`, {
        key: created.keys.admin,
        body: { identifier, identifier_type: 'evm_address', name },
      });
      identifiers.set(name, identifier);
    }
    return { id: created.id, key: created.keys.admin, identifiers };
  }

  function flagIn(listed: Awaited<ReturnType<typeof startProjectWith>>, name: string) {
    return stack.api.post(`/api/v1/projects/${listed.id}/affiliates/${listed.identifiers.get(name)}/flag`, {
      key: listed.key,
      body: { reason: 'check' },
    });
  }
});
