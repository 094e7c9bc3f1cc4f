import { createProject, mixedCase, randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { type ServiceClients, serviceClients } from '../helpers/rpc';
import type { TestStack } from '../helpers/stack';
import { conversionBody, createCurrency, evmUser, putTerms, referredUser, settled } from './claim-fixtures';

/**
 * The admin list of a project's conversions over HTTP (GET /api/v1/projects/:projectId/conversions),
 * against the real job: newest first, each item what GET /api/v1/conversions/:id answers, paging,
 * the filters alone and together, who may read it, and bad queries refused with 400.
 */
describe('the project’s conversions (HTTP list)', () => {
  let stack: TestStack;
  let project: TestProject;
  let other: TestProject;
  let clients: ServiceClients;
  /** Newest first, as the list answers them. */
  const sent: Array<ReturnType<typeof conversionBody>> = [];
  let referred: string;

  const list = (query = '', key = project.keys.admin, projectId = project.id) =>
    stack.api.get(`/api/v1/projects/${projectId}/conversions${query}`, { key });
  const ids = (body: { results: Array<{ id: string }> }) => body.results.map((item) => item.id);

  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    other = await createProject(stack, 'Other program');
    clients = serviceClients(stack);
    const currency = await createCurrency(stack, project);
    await putTerms(stack, project, 'trade', { currency_id: currency.id, end_user: { bps: 100 }, affiliate: { bps: 1_000 } });
    const { user } = await referredUser(clients, project);
    referred = user.identifier;
    // Oldest first, one second apart: three trades (two by the referred user) and two signups no terms cover.
    const bodies = [
      conversionBody({ user: evmUser(referred), reward_base: '10000' }),
      conversionBody({ name: 'signup' }),
      conversionBody(),
      conversionBody({ name: 'signup', user: evmUser(referred) }),
      conversionBody({ user: evmUser(referred), reward_base: '30000' }),
    ];
    for (const body of bodies) {
      const response = await stack.api.post('/api/v1/conversions', { key: project.keys.service, body });
      if (response.status !== 202) throw new Error(`conversion not accepted: ${response.status} ${response.text}`);
      stack.clock.advance(1_000);
      sent.unshift(body);
    }
    for (const body of bodies) await settled(stack, project, body.id);
    // Another project's conversion never shows here.
    await stack.api.post('/api/v1/conversions', { key: other.keys.service, body: conversionBody() });
  }, 60_000);

  afterAll(async () => {
    clients.close();
    await stack.stop();
  });

  it('lists every conversion newest first, each item as GET /api/v1/conversions/:id answers it', async () => {
    const response = await list();
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ total_results: 5, page: 1, page_size: 25 });
    expect(ids(response.body)).toEqual(sent.map((body) => body.id));
    for (const item of response.body.results) {
      const one = await stack.api.get(`/api/v1/conversions/${encodeURIComponent(item.id)}`, { key: project.keys.readOnly });
      // The list leaves reversals out (GET one conversion reads them): everything else is the same.
      const { reversals, ...rest } = one.body;
      expect(reversals).toEqual([]);
      expect(item).toEqual(rest);
    }
    const newest = response.body.results[0];
    expect(newest).toMatchObject({ status: 'processed', user_identifier: referred, reward_base: '30000' });
    expect(newest.movements.map((movement: { kind: string; amount: string }) => [movement.kind, movement.amount])).toEqual([
      ['affiliate_payout', '3000'],
      ['end_user_payout', '300'],
    ]);
  });

  it('pages through the same order', async () => {
    const pages = await Promise.all([1, 2, 3].map((page) => list(`?page=${page}&page_size=2`)));
    expect(pages.map((page) => ids(page.body))).toEqual(
      [sent.slice(0, 2), sent.slice(2, 4), sent.slice(4)].map((bodies) => bodies.map((body) => body.id)),
    );
    expect(pages.map((page) => [page.body.page, page.body.page_size, page.body.total_results])).toEqual([
      [1, 2, 5],
      [2, 2, 5],
      [3, 2, 5],
    ]);
    expect((await list('?page=4&page_size=2')).body).toMatchObject({ results: [], total_results: 5 });
  });

  it('filters by status, name and user, alone and together', async () => {
    const only = (predicate: (body: (typeof sent)[number]) => boolean) => sent.filter(predicate).map((body) => body.id);
    const noTerms = await list('?status=no_terms');
    expect(ids(noTerms.body)).toEqual(only((body) => body.name === 'signup'));
    expect(noTerms.body.total_results).toBe(2);
    expect(ids((await list('?name=trade')).body)).toEqual(only((body) => body.name === 'trade'));
    expect(ids((await list('?status=failed')).body)).toEqual([]);
    // Any letter case names the same user; the type defaults to evm_address.
    const mine = await list(`?user_identifier=${mixedCase(referred)}`);
    expect(ids(mine.body)).toEqual(only((body) => body.user.identifier === referred));
    expect(mine.body.total_results).toBe(3);
    const both = await list(`?user_identifier=${referred}&user_identifier_type=evm_address&name=trade&status=processed&page_size=1`);
    expect(ids(both.body)).toEqual([only((body) => body.user.identifier === referred && body.name === 'trade')[0]]);
    expect(both.body.total_results).toBe(2);
    expect((await list(`?user_identifier=${randomEvmAddress()}`)).body).toMatchObject({ results: [], total_results: 0 });
  });

  it('answers admin and read_only keys of the project; refuses service_role keys, other projects and no key', async () => {
    expect((await list('', project.keys.readOnly)).body.total_results).toBe(5);
    const service = await list('', project.keys.service);
    expect(service.status).toBe(403);
    expect(service.body.code).toBe('FORBIDDEN');
    // Another project's admin key learns nothing of this project.
    const foreign = await list('', other.keys.admin);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('PROJECT_NOT_FOUND');
    // Its own list holds its own conversion only.
    expect((await list('', other.keys.admin, other.id)).body.total_results).toBe(1);
    expect((await stack.api.get(`/api/v1/projects/${project.id}/conversions`)).status).toBe(401);
  });

  it.each([
    ['an unknown status', '?status=paid', 'status'],
    ['a page size past 100', '?page_size=101', 'page_size'],
    ['page 0', '?page=0', 'page'],
    ['an invalid address', '?user_identifier=0x12', 'user.identifier'],
    ['an unknown identifier type', '?user_identifier=someone&user_identifier_type=btc', 'user_identifier_type'],
    ['an identifier type without an identifier', '?user_identifier_type=email', 'user_identifier_type'],
    ['a name of 201 characters', `?name=${'n'.repeat(201)}`, 'name'],
    ['a blank name', '?name=%20%20', 'name'],
  ])('refuses %s with 400 in the standard error body, naming the field', async (_name, query, field) => {
    const response = await list(query);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: expect.any(String),
      details: expect.arrayContaining([expect.objectContaining({ field })]),
    });
  });
});
