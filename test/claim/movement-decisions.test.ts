import { randomUUID } from 'node:crypto';
import { randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import { serviceClients, type ServiceClients } from '../helpers/rpc';
import type { TestStack } from '../helpers/stack';
import { newWallet, signIn } from '../helpers/wallet';
import { conversionBody, createCurrency, putTerms, referredUser, settled } from './claim-fixtures';

const DAY = 86_400_000;

/**
 * Holding and approval over HTTP against the whole stack: terms with a hold and an approval, a
 * conversion whose movements wait, an admin's approval before the hold ends, the test clock moved
 * past it and the periodic job (every CLAIM_RELEASE_EVERY_MS) releasing them: totals move from
 * `pending` to `unclaimed`, movements from pending to available. The many cases are in
 * test/medium/claim/holds.test.ts.
 */
describe('holding and approval (HTTP)', () => {
  let stack: TestStack;
  let project: TestProject;
  let clients: ServiceClients;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject({ serviceEnv: { claim: { CLAIM_RELEASE_EVERY_MS: '100' } } }));
    clients = serviceClients(stack);
  });
  afterAll(async () => {
    clients?.close();
    await stack?.stop();
  });

  const decide = (action: 'approve' | 'decline', body: Record<string, unknown>, key = project.keys.admin) =>
    stack.api.post(`/api/v1/projects/${project.id}/movements/${action}`, { key, body });
  const totals = async (user: string) => {
    const response = await stack.api.get(`/api/v1/claim-checks/totals?user_identifier=${user}`, { key: project.keys.readOnly });
    expect(response.status).toBe(200);
    return response.body as { claimed: Array<{ amount: string }>; unclaimed: Array<{ amount: string }>; pending: Array<{ amount: string }> };
  };
  const movements = async (user: string) => {
    const response = await stack.api.get(`/api/v1/payouts/movements?user_identifier=${user}`, { key: project.keys.service });
    expect(response.status).toBe(200);
    return response.body.results as Array<{
      status: string;
      pending_reason: string | null;
      available_at: string;
      payout_status: string;
      total_amount: string;
    }>;
  };

  it('holds and waits for approval, approves before the hold ends, and the job releases the movements when the clock passes it', async () => {
    const currency = await createCurrency(stack, project);
    const terms = await putTerms(stack, project, 'trade', {
      currency_id: currency.id,
      end_user: { bps: 100 },
      affiliate: { bps: 1_000 },
      hold_days: 2,
      require_approval: true,
    });
    expect(terms).toMatchObject({ hold_days: 2, require_approval: true });
    const { affiliate, user } = await referredUser(clients, project);
    const body = conversionBody({ user: { identifier: user.identifier, identifier_type: 'evm_address' }, reward_base: '100000' });
    const paidAt = stack.clock.now();
    expect((await stack.api.post('/api/v1/conversions', { key: project.keys.service, body })).status).toBe(202);
    const conversion = await settled(stack, project, body.id);
    const availableAt = new Date(paidAt.getTime() + 2 * DAY).toISOString();
    expect(conversion.movements).toEqual([
      expect.objectContaining({
        kind: 'affiliate_payout',
        amount: '10000',
        status: 'pending',
        pending_reason: 'approval',
        payout_status: 'pending',
        available_at: availableAt,
      }),
      expect.objectContaining({
        kind: 'end_user_payout',
        amount: '1000',
        status: 'pending',
        pending_reason: 'approval',
        payout_status: 'pending',
        available_at: availableAt,
      }),
    ]);
    expect(await totals(user.identifier)).toEqual({
      claimed: [],
      unclaimed: [],
      pending: [expect.objectContaining({ amount: '1000', currency_address: currency.address })],
      debt: [],
    });

    // Only an admin decides; a bad body is a 400 with the standard error body.
    expect((await decide('approve', { conversion_ids: [body.id] }, project.keys.service)).status).toBe(403);
    const empty = await decide('approve', { conversion_ids: [] });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field: 'conversion_ids' })] });

    stack.clock.advance(DAY);
    const approved = await decide('approve', { conversion_ids: [body.id, 'unknown-id'] });
    expect(approved.status).toBe(200);
    expect(approved.body.results).toEqual([
      {
        conversion_id: body.id,
        outcome: 'approved',
        movements: [
          expect.objectContaining({ kind: 'affiliate_payout', status: 'pending', pending_reason: 'hold', payout_status: 'pending' }),
          expect.objectContaining({ kind: 'end_user_payout', status: 'pending', pending_reason: 'hold', payout_status: 'pending' }),
        ],
      },
      { conversion_id: 'unknown-id', outcome: 'not_found', movements: [] },
    ]);
    const again = await decide('approve', { conversion_ids: [body.id] });
    expect(again.body.results.map((result: { outcome: string }) => result.outcome)).toEqual(['already_approved']);
    const late = await decide('decline', { conversion_ids: [body.id], reason: 'too late' });
    expect(late.body.results.map((result: { outcome: string }) => result.outcome)).toEqual(['already_approved']);

    // The hold ends: the job (every 100 ms) releases the movements into open checks.
    stack.clock.advance(DAY);
    await pollUntil(async () => ((await totals(user.identifier)).pending.length === 0 ? true : undefined), {
      timeoutMs: 15_000,
      what: 'the release job to release the held movements',
    });
    expect(await totals(user.identifier)).toEqual({ claimed: [], unclaimed: [expect.objectContaining({ amount: '1000' })], pending: [], debt: [] });
    expect(await totals(affiliate.identifier)).toMatchObject({ unclaimed: [expect.objectContaining({ amount: '10000' })], pending: [] });
    expect(await movements(user.identifier)).toEqual([
      expect.objectContaining({ status: 'available', pending_reason: null, payout_status: 'open', available_at: availableAt, total_amount: '1000' }),
    ]);
    const board = await stack.api.get(`/api/v1/payouts/leaderboard/payouts?user_type=end_user`, { key: project.keys.service });
    expect(board.body.results).toEqual([
      expect.objectContaining({ user_identifier: user.identifier, total_amount: 0.001, total_amount_base_units: '1000' }),
    ]);
  });

  it('declines: the movements are never paid and say why', async () => {
    const currency = await createCurrency(stack, project);
    await putTerms(stack, project, 'signup', { currency_id: currency.id, end_user: { fixed: '500' }, require_approval: true });
    const body = conversionBody({ name: 'signup' });
    await stack.api.post('/api/v1/conversions', { key: project.keys.service, body });
    await settled(stack, project, body.id);
    const declined = await decide('decline', { conversion_ids: [body.id, body.id], reason: 'refunded' });
    expect(declined.status).toBe(200);
    expect(declined.body.results).toEqual([
      {
        conversion_id: body.id,
        outcome: 'declined',
        movements: [expect.objectContaining({ status: 'declined', pending_reason: null, payout_status: 'declined' })],
      },
    ]);
    expect(await totals(body.user.identifier)).toEqual({ claimed: [], unclaimed: [], pending: [], debt: [] });
    const again = await decide('decline', { conversion_ids: [body.id] });
    expect(again.body.results.map((result: { outcome: string }) => result.outcome)).toEqual(['already_declined']);
  });

  it('lets a wallet session read its own movements with their status and available_at, and no one else’s (403)', async () => {
    const currency = await createCurrency(stack, project);
    await putTerms(stack, project, 'held-signup', { currency_id: currency.id, end_user: { fixed: '700' }, hold_days: 3 });
    const wallet = await newWallet();
    const body = conversionBody({ name: 'held-signup', user: { identifier: wallet.checksumAddress, identifier_type: 'evm_address' } });
    const paidAt = stack.clock.now();
    expect((await stack.api.post('/api/v1/conversions', { key: project.keys.service, body })).status).toBe(202);
    await settled(stack, project, body.id);
    const token = await signIn(stack, wallet);
    const own = await stack.api.get(`/api/v1/payouts/movements?project_id=${project.id}`, { key: token });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ total_results: 1, page: 1 });
    expect(own.body.results).toEqual([
      expect.objectContaining({
        conversion_id: body.id,
        user_identifier: wallet.address,
        total_amount: '700',
        status: 'pending',
        pending_reason: 'hold',
        payout_status: 'pending',
        available_at: new Date(paidAt.getTime() + 3 * DAY).toISOString(),
        project_id: project.id,
      }),
    ]);
    // A status filter lists only the movements in it; an unknown status is a 400.
    const base = `/api/v1/payouts/movements?project_id=${project.id}`;
    expect((await stack.api.get(`${base}&status=pending`, { key: token })).body.results).toEqual(own.body.results);
    expect((await stack.api.get(`${base}&status=available`, { key: token })).body).toMatchObject({ results: [], total_results: 0 });
    const unknown = await stack.api.get(`${base}&status=held`, { key: token });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual([expect.objectContaining({ field: 'status' })]);
    // Naming itself (as the SDK would) answers the same; naming anyone else is refused.
    const named = await stack.api.get(`/api/v1/payouts/movements?project_id=${project.id}&user_identifier=${wallet.address}`, { key: token });
    expect(named.body.results).toEqual(own.body.results);
    const other = await stack.api.get(`/api/v1/payouts/movements?project_id=${project.id}&user_identifier=${randomEvmAddress()}`, { key: token });
    expect(other.status).toBe(403);
    expect(other.body).toMatchObject({ status: 403, code: 'FORBIDDEN', message: expect.stringContaining('its own wallet') });
    const email = await stack.api.get(`/api/v1/payouts/movements?project_id=${project.id}&user_identifier=a@b.example&identifier_type=email`, {
      key: token,
    });
    expect(email.status).toBe(403);
    // A session acts in the project it names: none named is a 400, an unknown one a 404.
    const unnamed = await stack.api.get('/api/v1/payouts/movements', { key: token });
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.details).toEqual([expect.objectContaining({ field: 'project_id' })]);
    expect((await stack.api.get(`/api/v1/payouts/movements?project_id=${randomUUID()}`, { key: token })).status).toBe(404);
  });
});
