import { createProject, createSegment, mixedCase, randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';
import { newWallet, signIn } from '../helpers/wallet';

const START = '2026-11-21T12:00:00.000Z';
const MINUTE = 60_000;

/**
 * The affiliate detail view over HTTP (§2.9): the affiliate with its audiences, badges and tax
 * status, its history and its referral tree, and who may read them. History's many cases are tested
 * on the domain (test/medium/agency/affiliate-history.test.ts).
 */
describe('affiliate detail, history and referrals (HTTP)', () => {
  let stack: TestStack;
  let project: TestProject;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
  });
  afterAll(() => stack.stop());
  afterEach(() => stack.clock.set(START));

  const base = () => `/api/v1/projects/${project.id}`;
  const admin = () => ({ key: project.keys.admin });
  async function newAffiliate(name = 'Alice', code = `c${randomEvmAddress().slice(2, 12)}`) {
    const identifier = randomEvmAddress();
    const response = await stack.api.post(`${base()}/affiliates`, { ...admin(), body: { identifier, identifier_type: 'evm_address', name, code } });
    if (response.status !== 201) throw new Error(`affiliate creation failed: ${response.status} ${response.text}`);
    return { ...(response.body as { id: string; identifier: string }), code };
  }
  const refer = (code: string, user = randomEvmAddress()) =>
    stack.api.post('/api/v1/referrals', { key: project.keys.service, body: { user_identifier: user, user_identifier_type: 'evm_address', code } });

  it('answers the detail with its audiences, badges, tax status and the paths of its lists', async () => {
    const affiliate = await newAffiliate('Dora');
    const badged = await createSegment(stack, project, { name: 'Early birds' });
    const plain = await createSegment(stack, project, { name: 'Newsletter' });
    expect(
      (
        await stack.api.post(`/v1/audience-segments/${badged.id}/badge`, {
          key: project.keys.service,
          body: { name: 'Early bird', image_url: 'https://cdn.example.com/e.png' },
        })
      ).status,
    ).toBe(201);
    for (const segment of [badged, plain]) {
      const added = await stack.api.post(`${base()}/audiences/${segment.id}/entries`, {
        ...admin(),
        body: { identifier: affiliate.identifier, identifier_type: 'evm_address' },
      });
      expect(added.status).toBe(201);
    }

    const detail = await stack.api.get(`${base()}/affiliates/${mixedCase(affiliate.identifier)}`, { key: project.keys.readOnly });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id: affiliate.id,
      identifier: affiliate.identifier,
      name: 'Dora',
      status: 'active',
      is_master: false,
      tax_status: 'not_required',
      badges: [{ audience_id: badged.id, name: 'Early bird', description: null, image: 'https://cdn.example.com/e.png' }],
      links: {
        history: `${base()}/affiliates/${affiliate.identifier}/history?identifier_type=evm_address`,
        referrals: `${base()}/affiliates/${affiliate.identifier}/referrals?identifier_type=evm_address`,
        sub_affiliates: null,
      },
    });
    expect(detail.body.audiences).toEqual(
      expect.arrayContaining([
        { id: badged.id, name: 'Early birds' },
        { id: plain.id, name: 'Newsletter' },
      ]),
    );
    expect(detail.body.audiences).toHaveLength(2);
    // Its lists answer at the paths it names.
    expect((await stack.api.get(detail.body.links.history, admin())).status).toBe(200);
    expect((await stack.api.get(detail.body.links.referrals, admin())).status).toBe(200);
  });

  it('links a master’s detail to its sub-affiliates', async () => {
    const master = await newAffiliate('Agency');
    expect((await stack.api.post(`${base()}/agencies`, { ...admin(), body: { user_identifier: master.identifier, spread_bps: 100 } })).status).toBe(
      201,
    );
    const detail = await stack.api.get(`${base()}/affiliates/${master.identifier}`, admin());
    expect(detail.body).toMatchObject({ is_master: true, links: { sub_affiliates: `${base()}/agencies/${master.id}/sub-affiliates` } });
    expect((await stack.api.get(detail.body.links.sub_affiliates, admin())).status).toBe(200);
  });

  it('answers the history newest first in the standard list shape, paged', async () => {
    const affiliate = await newAffiliate('Hank', 'hank_first');
    stack.clock.advance(MINUTE);
    expect(
      (await stack.api.post(`${base()}/affiliates/${affiliate.identifier}/suspend`, { ...admin(), body: { reason: 'chargebacks' } })).status,
    ).toBe(200);
    stack.clock.advance(MINUTE);
    expect((await stack.api.post(`${base()}/affiliates/${affiliate.identifier}/reactivate`, admin())).status).toBe(200);

    const history = await stack.api.get(`${base()}/affiliates/${affiliate.identifier}/history`, admin());
    expect(history.status).toBe(200);
    expect(history.body).toEqual({
      results: [
        {
          type: 'reactivated',
          at: '2026-11-21T12:02:00.000Z',
          data: { suspension_reason: 'chargebacks', suspended_at: '2026-11-21T12:01:00.000Z', by_api_key_id: project.keyIds.admin },
        },
        { type: 'suspended', at: '2026-11-21T12:01:00.000Z', data: { reason: 'chargebacks', by_api_key_id: project.keyIds.admin } },
        { type: 'code_created', at: START, data: { code: 'hank_first' } },
        { type: 'joined', at: START, data: { name: 'Hank', region: null } },
      ],
      total_results: 4,
      page: 1,
      page_size: 25,
    });
    const second = await stack.api.get(`${base()}/affiliates/${affiliate.identifier}/history?page=2&page_size=3`, { key: project.keys.readOnly });
    expect(second.body).toEqual({ results: [history.body.results[3]], total_results: 4, page: 2, page_size: 3 });
  });

  it('answers the referral tree: each referred user with its code and moment, newest first', async () => {
    const affiliate = await newAffiliate('Rita', 'rita_code');
    const first = randomEvmAddress();
    expect((await refer('rita_code', first)).status).toBe(201);
    stack.clock.advance(MINUTE);
    const second = randomEvmAddress();
    expect((await refer('RITA_CODE', second)).status).toBe(201);

    const referrals = await stack.api.get(`${base()}/affiliates/${affiliate.identifier}/referrals`, admin());
    expect(referrals.status).toBe(200);
    const user = (identifier: string, referredAt: string) => ({
      identifier,
      identifier_type: 'evm_address',
      code: 'rita_code',
      referred_at: referredAt,
      volume_usd: '0',
      revenue_usd: '0',
      conversions: 0,
    });
    expect(referrals.body).toEqual({
      results: [user(second, '2026-11-21T12:01:00.000Z'), user(first, START)],
      total_results: 2,
      page: 1,
      page_size: 25,
    });
  });

  it('answers 404 AFFILIATE_NOT_FOUND for a user who is no affiliate, and 400 for bad input, on every path of the view', async () => {
    for (const suffix of ['', '/history', '/referrals']) {
      const missing = await stack.api.get(`${base()}/affiliates/${randomEvmAddress()}${suffix}`, admin());
      expect(missing).toMatchObject({ status: 404, body: { code: 'AFFILIATE_NOT_FOUND' } });
      const invalid = await stack.api.get(`${base()}/affiliates/not-an-address${suffix}`, admin());
      expect(invalid.status).toBe(400);
      expect(invalid.body.code).toBe('VALIDATION_FAILED');
    }
    const affiliate = await newAffiliate();
    for (const query of ['page=0', 'page_size=101', 'sort_by=nope']) {
      const bad = await stack.api.get(`${base()}/affiliates/${affiliate.identifier}/referrals?${query}`, admin());
      expect(bad.status).toBe(400);
    }
    expect((await stack.api.get(`${base()}/affiliates/${affiliate.identifier}/history?page_size=0`, admin())).status).toBe(400);
  });

  it('lets only the project’s admin and read_only keys read the view: service keys 403, wallets 401, other projects 404', async () => {
    const affiliate = await newAffiliate();
    const paths = ['', '/history', '/referrals'].map((suffix) => `${base()}/affiliates/${affiliate.identifier}${suffix}`);
    const other = await createProject(stack, 'Other program');
    const token = await signIn(stack, await newWallet());
    for (const path of paths) {
      expect((await stack.api.get(path, { key: project.keys.service })).status).toBe(403);
      expect((await stack.api.get(path)).status).toBe(401);
      expect((await stack.api.get(path, { key: token })).status).toBe(401);
      expect((await stack.api.get(path, { key: other.keys.admin })).status).toBe(404);
    }
  });
});
