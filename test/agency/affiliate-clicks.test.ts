import { createProject, startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';
import { newWallet, signIn, type TestWallet } from '../helpers/wallet';

/**
 * Where clicks show (issue 24 §5) over HTTP: an affiliate's clicks in the list and its detail (the
 * metrics row's counter, kept by the trigger on code_clicks), its clicks per UTC day of all its codes or
 * of one (GET …/affiliates/:userIdentifier/clicks), and the affiliate's own rebate rate edit from the portal
 * (PATCH …/affiliate-portal/codes/:code). Clicks are written to code_clicks directly, as the
 * tracking batch job writes them (lower-cased code, one per tracking id and UTC day).
 */
describe('affiliate clicks and the portal’s rebate rate (HTTP)', () => {
  let stack: TestStack;
  let project: TestProject;
  let ada: TestWallet;
  let bob: TestWallet;
  const admin = () => ({ key: project.keys.admin });
  const clicksPath = (identifier: string, query = '') => `/api/v1/projects/${project.id}/affiliates/${identifier}/clicks${query}`;
  const ratePath = (code: string) => `/api/v1/projects/${project.id}/affiliate-portal/codes/${code}`;

  const click = (code: string, trackingId: string, day: string) =>
    stack.db.query('INSERT INTO agency.code_clicks (project_id, code, tracking_id, day, first_at) VALUES ($1, $2, $3, $4::date, $4::timestamptz)', [
      project.id,
      code,
      trackingId,
      day,
    ]);
  const listed = async (q: string) => {
    const response = await stack.api.get(`/api/v1/projects/${project.id}/affiliates?q=${q}`, admin());
    expect(response.status).toBe(200);
    return response.body.results[0];
  };
  /** The days of the series that have clicks. */
  const withClicks = (series: Array<{ date: string; clicks: number }>) => series.filter((day) => day.clicks > 0);

  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    stack.clock.set('2026-11-24T12:00:00.000Z');
    [ada, bob] = [await newWallet(), await newWallet()];
    for (const [wallet, name, code] of [
      [ada, 'Ada', 'AdaCode'],
      [bob, 'Bob', 'BobCode'],
    ] as const) {
      const created = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
        ...admin(),
        body: { identifier: wallet.checksumAddress, identifier_type: 'evm_address', name, code },
      });
      expect(created.status).toBe(201);
    }
    const second = await stack.api.post(`/api/v1/projects/${project.id}/affiliates/${ada.address}/codes`, {
      ...admin(),
      body: { code: 'AdaSecond' },
    });
    expect(second.status).toBe(201);
    // Ada: two visitors today and one on 11-20 through AdaCode, one 54 days ago (outside the last 30 days), one today through AdaSecond.
    await click('adacode', 't1', '2026-11-24');
    await click('adacode', 't2', '2026-11-24');
    await click('adacode', 't1', '2026-11-20');
    await click('adacode', 't3', '2026-10-01');
    await click('adasecond', 't4', '2026-11-24');
    // Bob's click, and a click of a code nobody holds: neither is Ada's.
    await click('bobcode', 't1', '2026-11-24');
    await click('nobodys', 't1', '2026-11-24');
  });
  afterAll(() => stack.stop());

  it('shows each affiliate’s clicks of all its codes, all time, in the list and its detail', async () => {
    expect(await listed('Ada')).toMatchObject({ name: 'Ada', clicks: 5, end_users: 0 });
    expect(await listed('Bob')).toMatchObject({ name: 'Bob', clicks: 1 });
    const detail = await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${ada.address}`, admin());
    expect(detail.body).toMatchObject({ clicks: 5 });
    expect(detail.body.codes.map((code: { code: string; clicks: number }) => [code.code, code.clicks])).toEqual([
      ['AdaCode', 4],
      ['AdaSecond', 1],
    ]);
    // A later click (another statement) adds to the counter.
    await click('adasecond', 't5', '2026-11-23');
    expect(await listed('Ada')).toMatchObject({ clicks: 6 });
    // The list sorts by clicks, both ways.
    const names = async (order: string) =>
      (await stack.api.get(`/api/v1/projects/${project.id}/affiliates?sort_by=clicks&order=${order}`, admin())).body.results.map(
        (item: { name: string; clicks: number }) => [item.name, item.clicks],
      );
    expect(await names('desc')).toEqual([
      ['Ada', 6],
      ['Bob', 1],
    ]);
    expect(await names('asc')).toEqual([
      ['Bob', 1],
      ['Ada', 6],
    ]);
  });

  it('answers the clicks per UTC day of the last 30 days by default, of all codes or of one, every day listed', async () => {
    const all = await stack.api.get(clicksPath(ada.address), admin());
    expect(all.status).toBe(200);
    expect(all.body.series).toHaveLength(30);
    expect(all.body.series[0]).toEqual({ date: '2026-10-26', clicks: 0 });
    expect(all.body.series[29]).toEqual({ date: '2026-11-24', clicks: 3 });
    expect(withClicks(all.body.series)).toEqual([
      { date: '2026-11-20', clicks: 1 },
      { date: '2026-11-23', clicks: 1 },
      { date: '2026-11-24', clicks: 3 },
    ]);
    // One code, any letter case; a read_only key reads it too.
    const one = await stack.api.get(clicksPath(ada.address, '?code=ADACODE'), { key: project.keys.readOnly });
    expect(one.status).toBe(200);
    expect(withClicks(one.body.series)).toEqual([
      { date: '2026-11-20', clicks: 1 },
      { date: '2026-11-24', clicks: 2 },
    ]);
    const range = await stack.api.get(clicksPath(ada.address, '?from=2026-10-01&to=2026-10-02&code=AdaCode'), admin());
    expect(range.body.series).toEqual([
      { date: '2026-10-01', clicks: 1 },
      { date: '2026-10-02', clicks: 0 },
    ]);
  });

  it('refuses another affiliate’s code, a user who is no affiliate, a bad range, and keys that may not read', async () => {
    expect(await stack.api.get(clicksPath(ada.address, '?code=BobCode'), admin())).toMatchObject({ status: 404, body: { code: 'CODE_NOT_FOUND' } });
    const stranger = await newWallet();
    expect(await stack.api.get(clicksPath(stranger.address), admin())).toMatchObject({ status: 404, body: { code: 'AFFILIATE_NOT_FOUND' } });
    for (const [query, field] of [
      ['?from=2026-11-24&to=2026-11-20', 'from'],
      ['?from=2025-01-01&to=2026-11-24', 'to'],
      ['?from=yesterday', 'from'],
    ]) {
      const response = await stack.api.get(clicksPath(ada.address, query), admin());
      expect(response).toMatchObject({ status: 400, body: { status: 400, details: [expect.objectContaining({ field })] } });
    }
    expect((await stack.api.get(clicksPath(ada.address), { key: project.keys.service })).status).toBe(403);
    const other = await createProject(stack, 'Other program');
    // Another project's key does not learn that this project exists.
    expect(await stack.api.get(clicksPath(ada.address), { key: other.keys.admin })).toMatchObject({
      status: 404,
      body: { code: 'PROJECT_NOT_FOUND' },
    });
    expect((await stack.api.get(clicksPath(ada.address), { key: await signIn(stack, ada) })).status).toBe(401);
  });

  it('lets the signed-in affiliate set and clear its own code’s rebate rate, 0 to 0.2 in whole percent', async () => {
    const token = await signIn(stack, ada);
    const stored = async () =>
      (
        await stack.db.query('SELECT code, user_rebate_rate_bps FROM agency.affiliate_codes WHERE project_id = $1 AND lower(code) = $2', [
          project.id,
          'adasecond',
        ])
      ).rows[0];
    const set = await stack.api.patch(ratePath('adasecond'), { key: token, body: { rebate_rate: 0.07 } });
    expect(set.status).toBe(200);
    expect(set.body.codes.find((code: { code: string }) => code.code === 'AdaSecond')).toMatchObject({ rebate_rate: 0.07 });
    expect(await stored()).toEqual({ code: 'AdaSecond', user_rebate_rate_bps: 700 });
    // The portal reads it back with its clicks.
    const own = await stack.api.get(`/api/v1/projects/${project.id}/affiliate-portal/affiliate`, { key: token });
    expect(own.body.codes.find((code: { code: string }) => code.code === 'AdaSecond')).toMatchObject({ rebate_rate: 0.07, clicks: 2 });
    expect((await stack.api.patch(ratePath('AdaSecond'), { key: token, body: { rebate_rate: 0.2 } })).status).toBe(200);
    expect(await stored()).toEqual({ code: 'AdaSecond', user_rebate_rate_bps: 2000 });
    expect((await stack.api.patch(ratePath('AdaSecond'), { key: token, body: { rebate_rate: null } })).status).toBe(200);
    expect(await stored()).toEqual({ code: 'AdaSecond', user_rebate_rate_bps: null });
  });

  it('refuses a rate out of range or too precise (400, nothing changed), a code it does not hold, a wallet that is no affiliate, and keys', async () => {
    const token = await signIn(stack, ada);
    for (const body of [{ rebate_rate: 0.21 }, { rebate_rate: -0.01 }, { rebate_rate: 0.075 }, { rebate_rate: '0.05' }, {}]) {
      const response = await stack.api.patch(ratePath('AdaCode'), { key: token, body });
      expect(response).toMatchObject({ status: 400, body: { status: 400, details: [expect.objectContaining({ field: 'rebate_rate' })] } });
    }
    expect(
      (await stack.db.query('SELECT user_rebate_rate_bps FROM agency.affiliate_codes WHERE project_id = $1 AND code = $2', [project.id, 'AdaCode']))
        .rows[0].user_rebate_rate_bps,
    ).toBeNull();
    expect(await stack.api.patch(ratePath('BobCode'), { key: token, body: { rebate_rate: 0.05 } })).toMatchObject({
      status: 404,
      body: { code: 'CODE_NOT_FOUND' },
    });
    const stranger = await signIn(stack, await newWallet());
    expect(await stack.api.patch(ratePath('AdaCode'), { key: stranger, body: { rebate_rate: 0.05 } })).toMatchObject({
      status: 404,
      body: { code: 'AFFILIATE_NOT_FOUND' },
    });
    expect((await stack.api.patch(ratePath('AdaCode'), { ...admin(), body: { rebate_rate: 0.05 } })).status).toBe(401);
    expect((await stack.api.patch(ratePath('AdaCode'), { body: { rebate_rate: 0.05 } })).status).toBe(401);
  });
});
