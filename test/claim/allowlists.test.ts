import { randomUUID } from 'node:crypto';
import { createProject, createSegment, randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import { type ServiceClients, serviceClients } from '../helpers/rpc';
import type { TestStack } from '../helpers/stack';
import { conversionBody, createCurrency, evmUser, putTerms, referredUser, settled } from './claim-fixtures';

/**
 * Audiences as allowlists (specification §1) through the gateway, the real job and the real
 * audience and agency services: the terms' two allowlist fields (validated against the project's
 * audiences, answered in the standard error body), and a conversion's `rewards`, where each side
 * says paid or not_eligible with the audience it was checked against.
 */
describe('allowlists in payout terms (HTTP)', () => {
  let stack: TestStack;
  let project: TestProject;
  let other: TestProject;
  let clients: ServiceClients;
  let currency: { id: string };
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    other = await createProject(stack, 'Other program');
    clients = serviceClients(stack);
    currency = await createCurrency(stack, project);
  });
  afterAll(async () => {
    clients.close();
    await stack.stop();
  });

  const terms = (name: string) => `/api/v1/projects/${project.id}/payout-terms/${encodeURIComponent(name)}`;
  const put = (name: string, body: Record<string, unknown>, p = project) =>
    stack.api.request('PUT', `/api/v1/projects/${p.id}/payout-terms/${encodeURIComponent(name)}`, { key: p.keys.admin, body });
  const addEntry = async (audienceId: string, identifier: string) => {
    const response = await stack.api.post(`/api/v1/projects/${project.id}/audiences/${audienceId}/entries`, {
      key: project.keys.admin,
      body: { identifier, identifier_type: 'evm_address' },
    });
    expect(response.status).toBe(201);
  };
  const send = async (body: Record<string, unknown>) => {
    expect((await stack.api.post('/api/v1/conversions', { key: project.keys.service, body })).status).toBe(202);
    return settled(stack, project, body.id as string);
  };

  describe('payout terms', () => {
    it('saves both allowlists (in any letter case, answered canonical), answers them, and clears them with null', async () => {
      const [users, affiliates] = [await createSegment(stack, project), await createSegment(stack, project)];
      const created = await put('gated', {
        currency_id: currency.id,
        end_user: { fixed: '1' },
        end_user_allowlist_audience_id: users.id.toUpperCase(),
        affiliate_allowlist_audience_id: affiliates.id,
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ end_user_allowlist_audience_id: users.id, affiliate_allowlist_audience_id: affiliates.id });
      expect((await stack.api.get(terms('gated'), { key: project.keys.admin })).body).toEqual(created.body);
      const listed = await stack.api.get(`/api/v1/projects/${project.id}/payout-terms`, { key: project.keys.admin });
      expect(listed.body.results).toContainEqual(created.body);

      const cleared = await put('gated', { currency_id: currency.id, end_user: { fixed: '1' }, end_user_allowlist_audience_id: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body).toMatchObject({ end_user_allowlist_audience_id: null, affiliate_allowlist_audience_id: null });
    });

    it('answers 400 AUDIENCE_NOT_FOUND naming the field for an unknown, deleted or other project’s audience, and stores nothing', async () => {
      const deleted = await createSegment(stack, project);
      expect((await stack.api.delete(`/api/v1/projects/${project.id}/audiences/${deleted.id}`, { key: project.keys.admin })).status).toBe(204);
      const foreign = await createSegment(stack, other);
      for (const [field, id] of [
        ['end_user_allowlist_audience_id', randomUUID()],
        ['affiliate_allowlist_audience_id', deleted.id],
        ['end_user_allowlist_audience_id', foreign.id],
      ] as const) {
        const response = await put('refused', { currency_id: currency.id, [field]: id });
        expect(response.status).toBe(400);
        expect(response.body).toEqual({
          status: 400,
          code: 'AUDIENCE_NOT_FOUND',
          message: `${field} names no audience of this project`,
          details: [{ field, reason: 'names no audience of this project' }],
        });
      }
      expect((await stack.api.get(terms('refused'), { key: project.keys.admin })).status).toBe(404);
    });

    it.each([
      ['no UUID', 'gold'],
      ['an empty string', ''],
      ['a number', 7],
    ])('answers 400 VALIDATION_FAILED naming the field for an allowlist that is %s', async (_case, value) => {
      const response = await put('refused', { currency_id: currency.id, affiliate_allowlist_audience_id: value });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        status: 400,
        code: 'VALIDATION_FAILED',
        details: [expect.objectContaining({ field: 'affiliate_allowlist_audience_id' })],
      });
      expect((await stack.api.get(terms('refused'), { key: project.keys.admin })).status).toBe(404);
    });
  });

  describe('a conversion’s rewards', () => {
    it('says per side paid or not_eligible, with the audience checked: the master’s spread follows its affiliate', async () => {
      const [users, partners] = [await createSegment(stack, project, { name: 'Users' }), await createSegment(stack, project, { name: 'Partners' })];
      await putTerms(stack, project, 'swap', {
        currency_id: currency.id,
        end_user: { fixed: '7' },
        affiliate: { fixed: '11' },
        end_user_allowlist_audience_id: users.id,
        affiliate_allowlist_audience_id: partners.id,
      });
      const { affiliate, user } = await referredUser(clients, project);
      const master = { identifier: randomEvmAddress(), identifierType: 'evm_address' };
      await clients.agency.createAffiliate({ projectId: project.id, user: master, name: 'Master', code: `m${randomUUID().slice(0, 8)}` });
      const designated = await clients.agency.designateMaster({ projectId: project.id, user: master, spreadBps: 1_000, actor: {} });
      await clients.agency.bindSubAffiliates({ projectId: project.id, masterId: designated.id, users: [affiliate], actor: {} });
      // The user is on the users' list; the affiliate on no list.
      await addEntry(users.id, user.identifier);
      stack.clock.advance(1_000);

      const refused = await send(conversionBody({ name: 'swap', user: evmUser(user.identifier), reward_base: '1000' }));
      expect(refused).toMatchObject({ status: 'processed', attribution: { master: { user_identifier: master.identifier }, spread_bps: 1_000 } });
      expect(refused.movements).toEqual([expect.objectContaining({ kind: 'end_user_payout', user_identifier: user.identifier, amount: '7' })]);
      expect(refused.rewards).toEqual({
        end_user: { status: 'paid', allowlist_audience_id: users.id, amount: '7' },
        affiliate: { status: 'not_eligible', allowlist_audience_id: partners.id, amount: '0' },
        master: { status: 'not_eligible', allowlist_audience_id: partners.id, amount: '0' },
      });

      // Listed from now on: the next conversion pays the affiliate and its master; the first keeps what it was paid.
      await addEntry(partners.id, affiliate.identifier);
      stack.clock.advance(1_000);
      const paid = await send(conversionBody({ name: 'swap', user: evmUser(user.identifier), reward_base: '1000' }));
      expect(paid.rewards).toEqual({
        end_user: { status: 'paid', allowlist_audience_id: users.id, amount: '7' },
        affiliate: { status: 'paid', allowlist_audience_id: partners.id, amount: '11' },
        master: { status: 'paid', allowlist_audience_id: partners.id, amount: '100' },
      });
      const again = await stack.api.get(`/api/v1/conversions/${encodeURIComponent(refused.id)}`, { key: project.keys.readOnly });
      expect(again.body.rewards).toEqual(refused.rewards);
      // The dashboard's list shows the same.
      const list = await stack.api.get(`/api/v1/projects/${project.id}/conversions?name=swap`, { key: project.keys.admin });
      expect(list.body.results.map((item: { id: string; rewards: unknown }) => [item.id, item.rewards])).toEqual([
        [paid.id, paid.rewards],
        [refused.id, refused.rewards],
      ]);
    });

    it('lets the members of a dynamic audience earn: a user who matches its condition is paid, one who does not is not_eligible', async () => {
      const vips = await createSegment(stack, project, { name: 'VIPs', condition: { metric: 'trait:vip', op: 'eq', value: true } });
      await putTerms(stack, project, 'vip-trade', { currency_id: currency.id, end_user: { fixed: '5' }, end_user_allowlist_audience_id: vips.id });
      const [vip, plain] = [randomEvmAddress(), randomEvmAddress()];
      const pushed = await stack.api.post('/v1/user-traits/batch', {
        key: project.keys.service,
        body: { traits: [{ identifier: vip, identifier_type: 'evm_address', name: 'vip', value: true }] },
      });
      expect(pushed.status).toBeLessThan(300);
      await pollUntil(
        async () => {
          const entries = await stack.api.get(`/v1/audience-segments/${vips.id}/entries`, { key: project.keys.service });
          return (
            entries.body.results?.some((entry: { identifier: string; kind: string }) => entry.identifier === vip && entry.kind === 'dynamic') ||
            undefined
          );
        },
        { timeoutMs: 15_000, what: 'the vip to enter the dynamic audience' },
      );
      const [member, outsider] = [
        await send(conversionBody({ name: 'vip-trade', user: evmUser(vip) })),
        await send(conversionBody({ name: 'vip-trade', user: evmUser(plain) })),
      ];
      expect(member.rewards).toEqual({ end_user: { status: 'paid', allowlist_audience_id: vips.id, amount: '5' }, affiliate: null, master: null });
      expect(outsider.rewards).toEqual({
        end_user: { status: 'not_eligible', allowlist_audience_id: vips.id, amount: '0' },
        affiliate: null,
        master: null,
      });
      expect(outsider.movements).toEqual([]);
    });

    it('is null for a conversion without terms (no_terms)', async () => {
      const body = conversionBody({ name: `unpaid-${randomUUID().slice(0, 6)}` });
      const settledBody = await send(body);
      expect(settledBody).toMatchObject({ status: 'no_terms', rewards: null });
    });
  });
});
