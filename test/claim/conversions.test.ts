import { createProject, randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { type ServiceClients, serviceClients } from '../helpers/rpc';
import type { TestStack } from '../helpers/stack';
import { conversionBody, createCurrency, evmUser, putTerms, referredUser, settled } from './claim-fixtures';

/**
 * Conversions, movements and the leaderboard over HTTP, through the real job and the real agency
 * service: statuses and bodies of intake (202, 200, 409, 400, 413), each batch item alone, the
 * paid conversion, a user's movements, the leaderboard, and who may call.
 */
describe('conversions and payouts (HTTP)', () => {
  let stack: TestStack;
  let project: TestProject;
  let other: TestProject;
  let clients: ServiceClients;
  let currency: { id: string; address: string; chain_id: number };
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    other = await createProject(stack, 'Other program');
    clients = serviceClients(stack);
    currency = await createCurrency(stack, project);
    await putTerms(stack, project, 'trade', { currency_id: currency.id, end_user: { bps: 100 }, affiliate: { bps: 1_000 } });
  });
  afterAll(async () => {
    clients.close();
    await stack.stop();
  });

  const submit = (body: unknown, key = project.keys.service) => stack.api.post('/api/v1/conversions', { key, body });
  const batch = (conversions: unknown[], key = project.keys.service) => stack.api.post('/api/v1/conversions/batch', { key, body: { conversions } });

  describe('one conversion', () => {
    it('answers 202 accepted, then pays it: the conversion, its attribution and its movements', async () => {
      const { affiliate, user } = await referredUser(clients, project);
      const body = conversionBody({
        user: { identifier: user.identifier.toUpperCase().replace('0X', '0x'), identifier_type: 'evm_address' },
        volume_usd: '99.90',
        reward_base: '123456',
      });
      const accepted = await submit(body);
      expect(accepted.status).toBe(202);
      expect(accepted.body).toEqual({ id: body.id, status: 'accepted' });
      const paid = await settled(stack, project, body.id);
      expect(paid).toEqual({
        id: body.id,
        name: 'trade',
        user_identifier: user.identifier,
        user_identifier_type: 'evm_address',
        status: 'processed',
        occurred_at: expect.any(String),
        received_at: expect.any(String),
        processed_at: expect.any(String),
        volume_usd: '99.9',
        revenue_usd: null,
        reward_base: '123456',
        referral_code: null,
        attribution: {
          affiliate: { id: expect.any(String), user_identifier: affiliate.identifier, user_identifier_type: 'evm_address' },
          master: null,
          upline: [],
          spread_bps: null,
          tier_id: null,
          user_rebate_rate_bps: 0,
        },
        failure_reason: null,
        movements: [
          expect.objectContaining({ kind: 'affiliate_payout', user_identifier: affiliate.identifier, amount: '12345', payout_status: 'open' }),
          expect.objectContaining({ kind: 'end_user_payout', user_identifier: user.identifier, amount: '1234', payout_status: 'open' }),
        ],
        // Terms without allowlists: every side that is there could earn.
        rewards: {
          end_user: { status: 'paid', allowlist_audience_id: null, amount: '1234' },
          affiliate: { status: 'paid', allowlist_audience_id: null, amount: '12345' },
          master: null,
        },
        // Nothing reversed it (POST /api/v1/conversions/{id}/reverse; test/claim/reversals.test.ts).
        reversals: [],
      });
      expect(paid.movements[0].currency).toEqual({
        id: currency.id,
        chain_id: 8453,
        address: currency.address,
        name: 'USDC',
        decimals: 6,
        type: 'erc20',
      });
    });

    it('answers the same id and body again 200 with where it stands, and another body 409 CONVERSION_ID_REUSED', async () => {
      const body = conversionBody();
      expect((await submit(body)).status).toBe(202);
      await settled(stack, project, body.id);
      const again = await submit(body);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ id: body.id, status: 'processed' });
      const reused = await submit({ ...body, reward_base: '1' });
      expect(reused.status).toBe(409);
      expect(reused.body).toEqual({ status: 409, code: 'CONVERSION_ID_REUSED', message: expect.stringContaining('own id'), details: [] });
      expect((await stack.api.get(`/api/v1/conversions/${body.id}`, { key: project.keys.service })).body.movements).toHaveLength(1);
    });

    it('records a conversion of a name no terms cover as no_terms, with no movement', async () => {
      const body = conversionBody({ name: 'signup', volume_usd: '10' });
      await submit(body);
      expect(await settled(stack, project, body.id)).toMatchObject({ status: 'no_terms', volume_usd: '10', movements: [] });
    });

    it.each([
      ['no id', { id: undefined }, 'id'],
      ['an id of 129 characters', { id: 'x'.repeat(129) }, 'id'],
      ['an invalid address', { user: evmUser('0x12') }, 'user.identifier'],
      ['an unknown identifier type', { user: { identifier: 'someone', identifier_type: 'btc' } }, 'user.identifier_type'],
      ['a volume as a JSON number', { volume_usd: 10 }, 'volume_usd'],
      ['a fractional reward_base', { reward_base: '1.5' }, 'reward_base'],
      ['an occurred_at that is no date', { occurred_at: 'yesterday' }, 'occurred_at'],
      ['an unknown field', { amount: '5' }, 'amount'],
    ])('refuses %s with 400 naming the field, storing nothing', async (_name, change, field) => {
      const body = conversionBody(change);
      const response = await submit(body);
      expect(response.status).toBe(400);
      expect(response.body.details).toContainEqual(expect.objectContaining({ field }));
      if (typeof body.id === 'string' && body.id.length <= 128) {
        expect((await stack.api.get(`/api/v1/conversions/${body.id}`, { key: project.keys.service })).status).toBe(404);
      }
    });

    it('takes service_role keys to submit, any key of the project to read one (admin included, as the list), and keeps projects apart', async () => {
      const body = conversionBody();
      expect((await submit(body, project.keys.admin)).status).toBe(403);
      expect((await submit(body, project.keys.readOnly)).status).toBe(403);
      expect((await stack.api.post('/api/v1/conversions', { body })).status).toBe(401);
      expect((await submit(body)).status).toBe(202);
      expect((await stack.api.get(`/api/v1/conversions/${body.id}`, { key: project.keys.readOnly })).status).toBe(200);
      const byAdmin = await stack.api.get(`/api/v1/conversions/${body.id}`, { key: project.keys.admin });
      expect(byAdmin.status).toBe(200);
      expect(byAdmin.body).toMatchObject({ id: body.id, name: body.name });
      expect((await stack.api.get(`/api/v1/conversions/${body.id}`, { key: other.keys.admin })).status).toBe(404);
      const foreign = await stack.api.get(`/api/v1/conversions/${body.id}`, { key: other.keys.service });
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('CONVERSION_NOT_FOUND');
      // The same id in another project is another conversion.
      expect((await submit({ ...body, reward_base: '5' }, other.keys.service)).status).toBe(202);
    });

    it('stores and pays a conversion once when 1,000 requests send it at once: one 202, 999 200s, one set of movements', async () => {
      const { user } = await referredUser(clients, project);
      const body = conversionBody({ user: { identifier: user.identifier, identifier_type: 'evm_address' } });
      const responses = await Promise.all(Array.from({ length: 1_000 }, () => submit(body)));
      expect(responses.filter((response) => response.status === 202)).toHaveLength(1);
      expect(responses.filter((response) => response.status === 200)).toHaveLength(999);
      const paid = await settled(stack, project, body.id, 30_000);
      expect(paid.movements.map((movement: { kind: string }) => movement.kind).sort()).toEqual(['affiliate_payout', 'end_user_payout']);
      const rows = await stack.db.query('SELECT count(*)::int AS n FROM claim.movements WHERE project_id = $1 AND conversion_id = $2', [
        project.id,
        body.id,
      ]);
      expect(rows.rows[0].n).toBe(2);
      // 1,000 requests through one gateway on 2 cores: room for a machine that is busy with other work.
    }, 180_000);
  });

  describe('a batch', () => {
    it('accepts or refuses each conversion alone and says so per item (202 when something was stored)', async () => {
      const earlier = conversionBody();
      await submit(earlier);
      const fresh = conversionBody();
      const response = await batch([
        fresh,
        { ...earlier },
        { ...earlier, name: 'renamed' },
        { id: 'no-user', name: 'trade' },
        'not an object',
        conversionBody({ reward_base: '-1' }),
      ]);
      expect(response.status).toBe(202);
      expect(response.body).toEqual({
        results: [
          { id: fresh.id, outcome: 'accepted', status: 'accepted', error: null },
          { id: earlier.id, outcome: 'duplicate', status: expect.stringMatching(/^(accepted|processed)$/), error: null },
          {
            id: earlier.id,
            outcome: 'refused',
            status: null,
            error: { status: 409, code: 'CONVERSION_ID_REUSED', message: expect.stringContaining('own id'), details: [] },
          },
          {
            id: 'no-user',
            outcome: 'refused',
            status: null,
            error: {
              status: 400,
              code: 'VALIDATION_FAILED',
              message: expect.any(String),
              details: [{ field: 'conversions[3].user', reason: expect.any(String) }],
            },
          },
          {
            id: null,
            outcome: 'refused',
            status: null,
            error: expect.objectContaining({ status: 400, details: [expect.objectContaining({ field: 'conversions[4]' })] }),
          },
          {
            id: expect.any(String),
            outcome: 'refused',
            status: null,
            error: {
              status: 400,
              code: 'VALIDATION_FAILED',
              message: 'conversions[5].reward_base: must not be negative',
              details: [{ field: 'conversions[5].reward_base', reason: 'must not be negative' }],
            },
          },
        ],
        accepted: 1,
        duplicates: 1,
        refused: 4,
      });
      expect((await settled(stack, project, fresh.id)).status).toBe('processed');
    });

    it('answers 200 when nothing new was stored, 413 BATCH_TOO_LARGE past 1,000, 400 when empty', async () => {
      const stored = conversionBody();
      await submit(stored);
      expect((await batch([stored])).status).toBe(200);
      const tooMany = await batch(Array.from({ length: 1_001 }, () => conversionBody()));
      expect(tooMany.status).toBe(413);
      expect(tooMany.body.code).toBe('BATCH_TOO_LARGE');
      expect((await batch([])).status).toBe(400);
      expect((await batch([conversionBody()], project.keys.readOnly)).status).toBe(403);
    });

    it('takes 1,000 conversions in one request and pays them all', async () => {
      const conversions = Array.from({ length: 1_000 }, () => conversionBody({ user: evmUser(), reward_base: '500' }));
      const response = await batch(conversions);
      expect(response.status).toBe(202);
      expect(response.body.accepted).toBe(1_000);
      await settled(stack, project, conversions[999]!.id, 30_000);
      const rows = await stack.db.query(
        "SELECT count(*) FILTER (WHERE status = 'processed')::int AS processed, count(*)::int AS n FROM claim.conversions WHERE project_id = $1 AND id = ANY($2)",
        [project.id, conversions.map((c) => c.id)],
      );
      expect(rows.rows[0]).toEqual({ processed: 1_000, n: 1_000 });
    }, 60_000);
  });

  describe('movements and the leaderboard', () => {
    it('lists a user’s movements newest first, in the standard list shape with the fields the SDK reads', async () => {
      const { affiliate, user } = await referredUser(clients, project);
      const first = conversionBody({ user: { identifier: user.identifier, identifier_type: 'evm_address' }, reward_base: '1000' });
      await submit(first);
      await settled(stack, project, first.id);
      stack.clock.advance(60_000);
      const second = conversionBody({ user: { identifier: user.identifier, identifier_type: 'evm_address' }, reward_base: '2000' });
      await submit(second);
      await settled(stack, project, second.id);
      const response = await stack.api.get(
        `/api/v1/payouts/movements?user_identifier=${affiliate.identifier.toUpperCase().replace('0X', '0x')}&page_size=10`,
        { key: project.keys.readOnly },
      );
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        results: [
          expect.objectContaining({ conversion_id: second.id, total_amount: '200' }),
          expect.objectContaining({ conversion_id: first.id, total_amount: '100' }),
        ],
        total_results: 2,
        page: 1,
        page_size: 10,
      });
      expect(response.body.results[0]).toEqual({
        date: expect.any(String),
        kind: 'affiliate_payout',
        is_referrer: true,
        rebate: false,
        level: 1,
        user_identifier: affiliate.identifier,
        user_identifier_type: 'evm_address',
        conversion_id: second.id,
        conversion_name: 'trade',
        total_amount: '200',
        currency_address: currency.address,
        chain_id: 8453,
        currency: { id: currency.id, chain_id: 8453, address: currency.address, name: 'USDC', decimals: 6, type: 'erc20' },
        payout_status: 'open',
        payout_status_details: null,
        status: 'available',
        pending_reason: null,
        available_at: expect.any(String),
        reversed_amount: '0',
        capped_amount: null,
        capped_by: null,
        project_id: project.id,
      });
      const asUser = await stack.api.get(
        `/api/v1/payouts/movements?user_identifier=${user.identifier}&identifier_type=evm_address&type=onchain-currency`,
        { key: project.keys.service },
      );
      expect(asUser.body.results.map((movement: { kind: string; is_referrer: boolean }) => [movement.kind, movement.is_referrer])).toEqual([
        ['end_user_payout', false],
        ['end_user_payout', false],
      ]);
    });

    it('refuses a movements query without a user, with disagreeing types, or of an unknown currency type (400)', async () => {
      expect((await stack.api.get('/api/v1/payouts/movements', { key: project.keys.service })).status).toBe(400);
      const disagree = await stack.api.get(
        `/api/v1/payouts/movements?user_identifier=${randomEvmAddress()}&user_identifier_type=evm_address&identifier_type=email`,
        { key: project.keys.service },
      );
      expect(disagree.status).toBe(400);
      expect(disagree.body.details).toEqual([{ field: 'identifier_type', reason: expect.any(String) }]);
      expect(
        (await stack.api.get(`/api/v1/payouts/movements?user_identifier=${randomEvmAddress()}&type=nft`, { key: project.keys.service })).status,
      ).toBe(400);
      expect(
        (await stack.api.get(`/api/v1/payouts/movements?user_identifier=someone&user_identifier_type=email`, { key: project.keys.service })).status,
      ).toBe(400);
      expect((await stack.api.get(`/api/v1/payouts/movements?user_identifier=${randomEvmAddress()}`, { key: project.keys.admin })).status).toBe(403);
    });

    it('ranks a currency’s earners, affiliates or end users, in the shape the SDK reads', async () => {
      const fresh = await createProject(stack, 'Leaderboard program');
      const usdc = await createCurrency(stack, fresh);
      await putTerms(stack, fresh, 'trade', { currency_id: usdc.id, end_user: { fixed: '10' } });
      const users = [evmUser(), evmUser(), evmUser()];
      const bodies = [
        conversionBody({ user: users[0] }),
        conversionBody({ user: users[1] }),
        conversionBody({ user: users[1] }),
        conversionBody({ user: users[2] }),
      ];
      await batch(bodies, fresh.keys.service);
      for (const body of bodies) await settled(stack, fresh, body.id);
      const response = await stack.api.get(`/api/v1/payouts/leaderboard/payouts?currency_address=${usdc.address}&user_type=end_user&page_size=2`, {
        key: fresh.keys.readOnly,
      });
      expect(response.status).toBe(200);
      const [a, b] = [users[0]!.identifier, users[2]!.identifier].sort();
      expect(response.body).toEqual({
        results: [
          {
            rank: 1,
            address: users[1]!.identifier,
            user_identifier: users[1]!.identifier,
            user_identifier_type: 'evm_address',
            total_amount: 0.00002,
            total_amount_base_units: '20',
            total_attributions: 2,
            chain_id: '8453',
          },
          {
            rank: 2,
            address: a,
            user_identifier: a,
            user_identifier_type: 'evm_address',
            total_amount: 0.00001,
            total_amount_base_units: '10',
            total_attributions: 1,
            chain_id: '8453',
          },
        ],
        total_results: 3,
        page: 1,
        page_size: 2,
        calculated_at: stack.clock.now().toISOString(),
      });
      const second = await stack.api.get(`/api/v1/payouts/leaderboard/payouts?user_type=end_user&page=2&page_size=2`, { key: fresh.keys.service });
      expect(second.body.results.map((entry: { rank: number; user_identifier: string }) => [entry.rank, entry.user_identifier])).toEqual([[3, b]]);
      const affiliates = await stack.api.get(`/api/v1/payouts/leaderboard/payouts?currency_address=${usdc.address}`, { key: fresh.keys.service });
      expect(affiliates.body).toMatchObject({ results: [], total_results: 0 });
      const unknown = await stack.api.get(`/api/v1/payouts/leaderboard/payouts?currency_address=${randomEvmAddress()}`, { key: fresh.keys.service });
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('CURRENCY_NOT_FOUND');
      expect((await stack.api.get('/api/v1/payouts/leaderboard/payouts?user_type=agency', { key: fresh.keys.service })).status).toBe(400);
      // The admin dashboard reads it with its admin key.
      expect((await stack.api.get('/api/v1/payouts/leaderboard/payouts?user_type=end_user&page_size=2', { key: fresh.keys.admin })).body).toEqual(
        response.body,
      );
    });
  });
});
