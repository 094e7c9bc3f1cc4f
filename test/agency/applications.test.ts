import { randomUUID } from 'node:crypto';
import { createProject, createSegment, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';
import { newWallet, signIn, type TestWallet } from '../helpers/wallet';

const START = '2026-11-21T12:00:00.000Z';

/**
 * Applications over HTTP: the portal (session token) and the admin review, their bodies and roles,
 * approval adding the audience entry through the event outbox, and the affiliate list's audience
 * filters following entries. Every transition is tested on the domain (test/medium/agency).
 */
describe('applications over HTTP', () => {
  let stack: TestStack;
  let project: TestProject;
  let staticAudience: { id: string };
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    staticAudience = await createSegment(stack, project, { name: 'Approved affiliates' });
  });
  afterAll(() => stack.stop());

  const portal = () => `/api/v1/projects/${project.id}/affiliate-portal/application`;
  const applications = () => `/api/v1/projects/${project.id}/applications`;
  const admin = () => ({ key: project.keys.admin });
  async function applicant(body: Record<string, unknown> = { name: 'Ada' }): Promise<{ wallet: TestWallet; token: string; id: string }> {
    const wallet = await newWallet();
    const token = await signIn(stack, wallet);
    const response = await stack.api.post(portal(), { key: token, body });
    if (response.status !== 201) throw new Error(`application failed: ${response.status} ${response.text}`);
    return { wallet, token, id: response.body.id };
  }
  const entriesOf = async (segmentId: string, identifier: string) =>
    Number(
      (await stack.db.query('SELECT count(*) AS n FROM audience.entries WHERE segment_id = $1 AND identifier = $2', [segmentId, identifier])).rows[0]
        .n,
    );

  it('takes an application from the signed-in wallet (201) and shows it back, with no affiliate yet', async () => {
    const wallet = await newWallet();
    const token = await signIn(stack, wallet);
    const response = await stack.api.post(portal(), {
      key: token,
      body: { name: 'Ada Lovelace', region: 'gb', message: 'Newsletter, 40k readers', code: 'ADA40K' },
    });
    const application = {
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      identifier: wallet.address,
      identifier_type: 'evm_address',
      name: 'Ada Lovelace',
      region: 'GB',
      message: 'Newsletter, 40k readers',
      code: 'ADA40K',
      status: 'pending',
      created_at: START,
      updated_at: START,
      hold_note: null,
      held_at: null,
      decided_at: null,
      rejection_reason: null,
      audience_id: null,
      affiliate_id: null,
      granted_code: null,
    };
    expect(response).toMatchObject({ status: 201, body: application });
    expect(await stack.api.get(portal(), { key: token })).toMatchObject({ status: 200, body: { ...application, affiliate: null } });
    expect(await stack.api.post(portal(), { key: token, body: { name: 'Again' } })).toMatchObject({
      status: 409,
      body: { code: 'APPLICATION_OPEN' },
    });
    expect(await stack.api.get(`${applications()}/${response.body.id}`, { key: project.keys.readOnly })).toMatchObject({
      status: 200,
      body: application,
    });
  });

  it('answers 404 to a wallet that has not applied, and 400 naming bad fields', async () => {
    const token = await signIn(stack, await newWallet());
    expect(await stack.api.get(portal(), { key: token })).toMatchObject({ status: 404, body: { code: 'APPLICATION_NOT_FOUND' } });
    const bad = await stack.api.post(portal(), { key: token, body: { name: '', region: 'XX', code: 'a b' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((detail: { field: string }) => detail.field).sort()).toEqual(['code', 'name', 'region']);
    expect(await stack.api.post(portal(), { key: token, body: { name: 'Eve', status: 'approved' } })).toMatchObject({ status: 400 });
  });

  it('approves: the wallet becomes an active affiliate with its code, its application shows it, and the audience entry appears exactly once', async () => {
    const code = `grace${Date.now().toString(36)}`;
    const { wallet, token, id } = await applicant({ name: 'Grace', code });
    const approved = await stack.api.post(`${applications()}/${id}/approve`, { ...admin(), body: { audience_id: staticAudience.id.toUpperCase() } });
    expect(approved).toMatchObject({
      status: 200,
      body: { id, status: 'approved', audience_id: staticAudience.id, granted_code: code, affiliate_id: expect.any(String), decided_at: START },
    });
    const own = await stack.api.get(portal(), { key: token });
    expect(own.body).toMatchObject({
      status: 'approved',
      affiliate: {
        id: approved.body.affiliate_id,
        identifier: wallet.address,
        name: 'Grace',
        status: 'active',
        codes: [expect.objectContaining({ code })],
      },
    });
    await pollUntil(async () => (await entriesOf(staticAudience.id, wallet.address)) === 1, {
      timeoutMs: 10_000,
      what: 'the approved affiliate’s audience entry',
    });
    expect(await stack.api.post(`${applications()}/${id}/approve`, { ...admin(), body: { audience_id: staticAudience.id } })).toMatchObject({
      status: 409,
      body: { code: 'APPLICATION_DECIDED' },
    });
    expect(await stack.api.post(`${applications()}/${id}/hold`, { ...admin(), body: {} })).toMatchObject({
      status: 409,
      body: { code: 'APPLICATION_DECIDED' },
    });
    expect(await stack.api.post(portal(), { key: token, body: { name: 'Again' } })).toMatchObject({
      status: 409,
      body: { code: 'AFFILIATE_EXISTS' },
    });
    expect(await entriesOf(staticAudience.id, wallet.address)).toBe(1);
  });

  it('needs a static audience of this project to approve: 400 AUDIENCE_NOT_STATIC, 404 AUDIENCE_NOT_FOUND, 400 without one', async () => {
    const { id } = await applicant();
    const dynamic = await createSegment(stack, project, { condition: { metric: 'volume_usd', op: 'gte', value: '10' } });
    const other = await createProject(stack, 'Other');
    const foreign = await createSegment(stack, other);
    const approve = (body: Record<string, unknown>) => stack.api.post(`${applications()}/${id}/approve`, { ...admin(), body });
    expect(await approve({ audience_id: dynamic.id })).toMatchObject({
      status: 400,
      body: { code: 'AUDIENCE_NOT_STATIC', details: [{ field: 'audience_id' }] },
    });
    expect(await approve({ audience_id: foreign.id })).toMatchObject({ status: 404, body: { code: 'AUDIENCE_NOT_FOUND' } });
    expect(await approve({ audience_id: randomUUID() })).toMatchObject({ status: 404, body: { code: 'AUDIENCE_NOT_FOUND' } });
    expect(await approve({})).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    expect((await stack.api.get(`${applications()}/${id}`, admin())).body.status).toBe('pending');
  });

  it('holds with a note and rejects with a required reason; the rejected wallet may apply again', async () => {
    const { token, id } = await applicant();
    expect(await stack.api.post(`${applications()}/${id}/hold`, { ...admin(), body: { note: 'Ask about traffic' } })).toMatchObject({
      status: 200,
      body: { status: 'on_hold', hold_note: 'Ask about traffic', held_at: START },
    });
    expect(await stack.api.post(`${applications()}/${id}/hold`, { ...admin(), body: {} })).toMatchObject({
      status: 409,
      body: { code: 'APPLICATION_ON_HOLD' },
    });
    expect(await stack.api.post(`${applications()}/${id}/reject`, { ...admin(), body: {} })).toMatchObject({
      status: 400,
      body: { details: [{ field: 'reason' }] },
    });
    expect(await stack.api.post(`${applications()}/${id}/reject`, { ...admin(), body: { reason: ' ' } })).toMatchObject({ status: 400 });
    expect(await stack.api.post(`${applications()}/${id}/reject`, { ...admin(), body: { reason: 'Traffic too low' } })).toMatchObject({
      status: 200,
      body: { status: 'rejected', rejection_reason: 'Traffic too low', decided_at: START },
    });
    const again = await stack.api.post(portal(), { key: token, body: { name: 'Ada, again' } });
    expect(again).toMatchObject({ status: 201, body: { status: 'pending' } });
    expect(again.body.id).not.toBe(id);
    expect(await stack.api.get(`${applications()}/${id}`, admin())).toMatchObject({ body: { status: 'rejected' } });
  });

  it('lists applications oldest first by status, in the dashboard’s page sizes, and decides many at once, each alone', async () => {
    const other = await createProject(stack, 'Review queue');
    const audience = await createSegment(stack, other);
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const token = await signIn(stack, await newWallet());
      ids.push(
        (await stack.api.post(`/api/v1/projects/${other.id}/affiliate-portal/application`, { key: token, body: { name: `Applicant ${i}` } })).body.id,
      );
      stack.clock.advance(1_000);
    }
    stack.clock.set(START);
    const list = (query: string) => stack.api.get(`/api/v1/projects/${other.id}/applications${query}`, { key: other.keys.readOnly });
    expect((await list('?status=pending')).body).toMatchObject({
      total_results: 3,
      page: 1,
      page_size: 25,
      results: ids.map((id) => expect.objectContaining({ id })),
    });
    for (const size of [10, 20, 50, 100]) expect((await list(`?page_size=${size}`)).body.page_size).toBe(size);
    expect(await list('?page_size=101')).toMatchObject({ status: 400 });
    expect(await list('?status=maybe')).toMatchObject({ status: 400 });

    const missing = randomUUID();
    const bulk = await stack.api.post(`/api/v1/projects/${other.id}/applications/bulk`, {
      key: other.keys.admin,
      body: { action: 'approve', audience_id: audience.id, application_ids: [ids[0], missing, ids[1], ids[0]] },
    });
    expect(bulk.status).toBe(200);
    expect(
      bulk.body.results.map((result: { application_id: string; ok: boolean; error: { code: string } | null }) => [
        result.application_id,
        result.ok,
        result.error?.code ?? null,
      ]),
    ).toEqual([
      [ids[0], true, null],
      [missing, false, 'APPLICATION_NOT_FOUND'],
      [ids[1], true, null],
      [ids[0], false, 'APPLICATION_DECIDED'],
    ]);
    expect(bulk.body.results[0].application).toMatchObject({ id: ids[0], status: 'approved' });
    expect((await list('?status=pending')).body.results.map((item: { id: string }) => item.id)).toEqual([ids[2]]);
    expect(
      await stack.api.post(`/api/v1/projects/${other.id}/applications/bulk`, {
        key: other.keys.admin,
        body: { action: 'reject', application_ids: [ids[2]] },
      }),
    ).toMatchObject({ status: 400, body: { details: [{ field: 'reason' }] } });
    expect(
      await stack.api.post(`/api/v1/projects/${other.id}/applications/bulk`, {
        key: other.keys.admin,
        body: { action: 'hold', application_ids: Array.from({ length: 101 }, randomUUID) },
      }),
    ).toMatchObject({ status: 413, body: { code: 'TOO_MANY_APPLICATIONS' } });
  });

  it('lets read_only read and only admin decide; service_role and other projects’ keys get nothing', async () => {
    const { id } = await applicant();
    const other = await createProject(stack, 'Elsewhere');
    for (const [path, body] of [
      [`${applications()}/${id}/approve`, { audience_id: staticAudience.id }],
      [`${applications()}/${id}/reject`, { reason: 'No' }],
      [`${applications()}/${id}/hold`, {}],
      [`${applications()}/bulk`, { action: 'hold', application_ids: [id] }],
    ] as const) {
      expect(await stack.api.post(path, { key: project.keys.readOnly, body })).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
      expect(await stack.api.post(path, { key: project.keys.service, body })).toMatchObject({ status: 403 });
      expect(await stack.api.post(path, { key: other.keys.admin, body })).toMatchObject({ status: 404, body: { code: 'PROJECT_NOT_FOUND' } });
    }
    expect(await stack.api.get(applications(), { key: project.keys.service })).toMatchObject({ status: 403 });
    expect(await stack.api.get(`/api/v1/projects/${other.id}/applications/${id}`, { key: other.keys.admin })).toMatchObject({
      status: 404,
      body: { code: 'APPLICATION_NOT_FOUND' },
    });
    expect((await stack.api.get(`${applications()}/${id}`, admin())).body.status).toBe('pending');
  });

  it('filters the affiliate list by audience membership, following entries as the audience service adds and removes them', async () => {
    const [gold, silver] = [await createSegment(stack, project), await createSegment(stack, project)];
    const [a, b] = [await applicant({ name: 'In gold' }), await applicant({ name: 'In silver' })];
    for (const [{ id }, segment] of [
      [a, gold],
      [b, silver],
    ] as const) {
      expect((await stack.api.post(`${applications()}/${id}/approve`, { ...admin(), body: { audience_id: segment.id } })).status).toBe(200);
    }
    const listed = async (query: string) =>
      (
        (await stack.api.get(`/api/v1/projects/${project.id}/affiliates?${query}`, { key: project.keys.readOnly })).body.results as Array<{
          identifier: string;
        }>
      )
        .map((affiliate) => affiliate.identifier)
        .sort();
    await pollUntil(async () => (await listed(`audience_ids=${gold.id},${silver.id}`)).length === 2, {
      timeoutMs: 10_000,
      what: 'both memberships in the projection',
    });
    expect(await listed(`audience=${gold.id}`)).toEqual([a.wallet.address]);
    expect(await listed(`audience_ids=${gold.id.toUpperCase()}, ${silver.id}`)).toEqual([a.wallet.address, b.wallet.address].sort());
    expect(await listed(`audience=${gold.id}&audience_ids=${silver.id}`)).toEqual([]);

    const removed = await stack.api.delete(`/v1/audience-segments/${gold.id}/entries/${a.wallet.address}`, { key: project.keys.service });
    expect(removed.status).toBe(204);
    await pollUntil(async () => (await listed(`audience=${gold.id}`)).length === 0, { timeoutMs: 10_000, what: 'the removal in the projection' });
    expect(await stack.api.get(`/api/v1/projects/${project.id}/affiliates?audience=gold`, admin())).toMatchObject({
      status: 400,
      body: { details: [{ field: 'audience' }] },
    });
  });
});
