import { randomUUID } from 'node:crypto';
import { createProject, randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';
import { createCurrency } from './claim-fixtures';

/** Currencies and payout terms over HTTP: statuses, bodies, and who may call (admin keys of the project). */
describe('currencies and payout terms (HTTP)', () => {
  let stack: TestStack;
  let project: TestProject;
  let other: TestProject;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    other = await createProject(stack, 'Other program');
  });
  afterAll(() => stack.stop());

  const currencies = (p: TestProject) => `/api/v1/projects/${p.id}/currencies`;
  const terms = (p: TestProject, name = 'trade') => `/api/v1/projects/${p.id}/payout-terms/${encodeURIComponent(name)}`;

  describe('currencies', () => {
    it('creates a currency (201, address lowercase) and lists it in the standard shape', async () => {
      const address = `0x${'Ab'.repeat(20)}`;
      const created = await stack.api.post(currencies(project), {
        key: project.keys.admin,
        body: { chain_id: 10, address, name: 'OP', decimals: 18, type: 'erc20' },
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(String),
        chain_id: 10,
        address: address.toLowerCase(),
        name: 'OP',
        decimals: 18,
        type: 'erc20',
        created_at: expect.any(String),
      });
      const listed = await stack.api.get(`${currencies(project)}?page_size=100`, { key: project.keys.admin });
      expect(listed.status).toBe(200);
      expect(listed.body).toMatchObject({ page: 1, page_size: 100 });
      expect(listed.body.results).toContainEqual(created.body);
      expect(listed.body.total_results).toBe(listed.body.results.length);
    });

    it('answers 409 CURRENCY_EXISTS for the same chain and address, whatever its letter case', async () => {
      const currency = await createCurrency(stack, project);
      const again = await stack.api.post(currencies(project), {
        key: project.keys.admin,
        body: { chain_id: currency.chain_id, address: currency.address.toUpperCase().replace('0X', '0x'), name: 'Again', decimals: 6, type: 'erc20' },
      });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ status: 409, code: 'CURRENCY_EXISTS' });
    });

    it.each([
      ['a chain id as a string', { chain_id: '1' }, 'chain_id'],
      ['decimals past 77', { decimals: 78 }, 'decimals'],
      ['an unknown type', { type: 'erc721' }, 'type'],
      ['an unknown field', { symbol: 'USDC' }, 'symbol'],
      ['a native currency not at the zero address', { type: 'native' }, 'address'],
    ])('refuses %s with 400 naming the field', async (_name, change, field) => {
      const response = await stack.api.post(currencies(project), {
        key: project.keys.admin,
        body: { chain_id: 1, address: randomEvmAddress(), name: 'X', decimals: 6, type: 'erc20', ...change },
      });
      expect(response.status).toBe(400);
      expect(response.body.details).toContainEqual(expect.objectContaining({ field }));
    });

    it('takes admin keys of the project only: 403 for other roles, 404 for another project’s key', async () => {
      const body = { chain_id: 1, address: randomEvmAddress(), name: 'X', decimals: 6, type: 'erc20' };
      expect((await stack.api.post(currencies(project), { key: project.keys.service, body })).status).toBe(403);
      expect((await stack.api.post(currencies(project), { key: project.keys.readOnly, body })).status).toBe(403);
      expect((await stack.api.get(currencies(project), { key: project.keys.readOnly })).status).toBe(403);
      expect((await stack.api.post(currencies(project), { key: other.keys.admin, body })).status).toBe(404);
      expect((await stack.api.post(currencies(project), { body })).status).toBe(401);
    });
  });

  describe('payout terms', () => {
    it('creates terms (201), replaces them (200), answers, lists and deletes them (204, then 404)', async () => {
      const currency = await createCurrency(stack, project);
      const gold = randomUUID();
      const body = {
        currency_id: currency.id,
        end_user: { fixed: '1000000' },
        affiliate: { bps: 250 },
        affiliate3: { fixed: '30' },
        tiers: [{ audience_id: gold.toUpperCase(), affiliate: { bps: 500 }, affiliate2: { bps: 100 } }],
      };
      const created = await stack.api.request('PUT', terms(project, 'swap usdc'), { key: project.keys.admin, body });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        conversion_name: 'swap usdc',
        currency_id: currency.id,
        end_user: { fixed: '1000000' },
        affiliate: { bps: 250 },
        // Referral levels 2..4 (docs/claims.md#referral-levels): null where not paid.
        affiliate2: null,
        affiliate3: { fixed: '30' },
        affiliate4: null,
        tiers: [{ audience_id: gold, affiliate: { bps: 500 }, affiliate2: { bps: 100 }, affiliate3: null, affiliate4: null }],
        end_user_allowlist_audience_id: null,
        affiliate_allowlist_audience_id: null,
        hold_days: 0,
        require_approval: false,
        caps: { per_conversion: null, per_end_user: null, per_affiliate_window: null },
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      const replaced = await stack.api.request('PUT', terms(project, 'swap usdc'), {
        key: project.keys.admin,
        body: { currency_id: currency.id, affiliate: null },
      });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({ end_user: null, affiliate: null, affiliate3: null, tiers: [] });
      expect((await stack.api.get(terms(project, 'swap usdc'), { key: project.keys.admin })).body).toEqual(replaced.body);
      const listed = await stack.api.get(`/api/v1/projects/${project.id}/payout-terms`, { key: project.keys.admin });
      expect(listed.body.results).toContainEqual(replaced.body);
      expect((await stack.api.delete(terms(project, 'swap usdc'), { key: project.keys.admin })).status).toBe(204);
      const gone = await stack.api.get(terms(project, 'swap usdc'), { key: project.keys.admin });
      expect(gone.status).toBe(404);
      expect(gone.body.code).toBe('PAYOUT_TERMS_NOT_FOUND');
      expect((await stack.api.delete(terms(project, 'swap usdc'), { key: project.keys.admin })).status).toBe(404);
    });

    it.each([
      ['a fixed amount as a JSON number', { end_user: { fixed: 1000 } }, 'end_user'],
      ['a reward with both fixed and bps', { affiliate: { fixed: '1', bps: 1 } }, 'affiliate'],
      ['bps past 10,000', { affiliate: { bps: 10_001 } }, 'affiliate'],
      ['a tier of no UUID', { tiers: [{ audience_id: 'gold', affiliate: { bps: 1 } }] }, 'tiers[0].audience_id'],
      ['a tier without its reward', { tiers: [{ audience_id: randomUUID() }] }, 'tiers[0].affiliate'],
      ['a level’s bps past 10,000', { affiliate2: { bps: 10_001 } }, 'affiliate2'],
      ['a negative level reward', { affiliate4: { fixed: '-1' } }, 'affiliate4'],
      [
        'a tier’s level reward of a bad shape',
        { tiers: [{ audience_id: randomUUID(), affiliate: { bps: 1 }, affiliate3: { bps: 'x' } }] },
        'tiers[0].affiliate3',
      ],
      ['a level past 4', { affiliate5: { bps: 1 } }, 'affiliate5'],
    ])('refuses %s with 400 naming the field', async (_name, change, field) => {
      const currency = await createCurrency(stack, project);
      const response = await stack.api.request('PUT', terms(project), { key: project.keys.admin, body: { currency_id: currency.id, ...change } });
      expect(response.status).toBe(400);
      expect(response.body.details).toContainEqual(expect.objectContaining({ field: expect.stringContaining(field) }));
    });

    it('says which shapes a reward takes when it matches none (message and details alike), storing nothing', async () => {
      const currency = await createCurrency(stack, project);
      const expected = 'expected {"fixed": "<base units as a decimal string>"} or {"bps": <0-10000>}';
      for (const [change, field] of [
        [{ affiliate: { fixed: 5000000 } }, 'affiliate'],
        [{ end_user: { percent: 5 } }, 'end_user'],
        [{ tiers: [{ audience_id: randomUUID(), affiliate: '250' }] }, 'tiers[0].affiliate'],
      ] as const) {
        const response = await stack.api.request('PUT', terms(project, 'shapes'), {
          key: project.keys.admin,
          body: { currency_id: currency.id, ...change },
        });
        expect(response.status).toBe(400);
        expect(response.body).toEqual({
          status: 400,
          code: 'VALIDATION_FAILED',
          message: `${field}: ${expected}`,
          details: [{ field, reason: expected }],
        });
      }
      expect((await stack.api.get(terms(project, 'shapes'), { key: project.keys.admin })).status).toBe(404);
    });

    it('refuses a currency of another project (400 CURRENCY_NOT_FOUND) and stores nothing', async () => {
      const theirs = await createCurrency(stack, other);
      const response = await stack.api.request('PUT', terms(project, 'foreign'), { key: project.keys.admin, body: { currency_id: theirs.id } });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'CURRENCY_NOT_FOUND', details: [{ field: 'currency_id' }] });
      expect((await stack.api.get(terms(project, 'foreign'), { key: project.keys.admin })).status).toBe(404);
    });

    it('takes admin keys of the project only', async () => {
      const currency = await createCurrency(stack, project);
      const body = { currency_id: currency.id };
      expect((await stack.api.request('PUT', terms(project), { key: project.keys.service, body })).status).toBe(403);
      expect((await stack.api.get(terms(project), { key: project.keys.readOnly })).status).toBe(403);
      expect((await stack.api.request('PUT', terms(project), { key: other.keys.admin, body })).status).toBe(404);
      expect((await stack.api.delete(terms(project), { key: other.keys.admin })).status).toBe(404);
    });
  });
});
