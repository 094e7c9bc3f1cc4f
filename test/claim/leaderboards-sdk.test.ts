import { randomUUID } from 'node:crypto';
import { Fuul, UserIdentifierType } from '@fuul/sdk';
import { createProject, randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { refusal, initFuulSdk } from '../helpers/fuul-sdk';
import { serviceClients, type ServiceClients } from '../helpers/rpc';
import type { TestStack } from '../helpers/stack';
import { newWallet, signIn } from '../helpers/wallet';
import { conversionBody, createCurrency, evmUser, putTerms, referredUser, sendAttributedConversions, sendSettledConversions } from './claim-fixtures';

const EVM = UserIdentifierType.EvmAddress;

/**
 * Issue 25 §3 through the published @fuul/sdk (7.41.0): getPayoutsLeaderboard over date ranges (the
 * per-day totals of migration 0015), its user type, a user's own row, and what it refuses. Movements
 * are written on three UTC days by moving the stack's clock; a movement counts on the day it was written.
 *
 * End users earn 1% of reward_base, the referred user's affiliate 2%; the currency has 6 decimals:
 *   2026-11-21 (its last millisecond): A 1,234,567  B 1,000,000  C 1
 *   2026-11-22 (its first millisecond): B 234,567  C 2,000,000  R 500,000 (affiliate F 1,000,000)
 *   2026-11-23: A 50,000
 * so A and B tie on 21–22 (1,234,567 each) and are ranked by identifier.
 */
describe('the Fuul SDK on the payouts leaderboard over date ranges', () => {
  let stack: TestStack;
  let project: TestProject;
  let clients: ServiceClients;
  let currency: { id: string; address: string };
  const [A, B, C] = [evmUser(), evmUser(), evmUser()];
  let R: { identifier: string };
  let F: { identifier: string };
  let code: string;
  /** A and B in the order their tie is ranked (by identifier). */
  let tie: [string, string];

  async function pay(at: string, payments: Array<[{ identifier: string }, bigint]>) {
    stack.clock.set(at);
    const bodies = payments.map(([user, amount]) => conversionBody({ user: evmUser(user.identifier), reward_base: String(amount * 100n) }));
    await sendSettledConversions(stack, project, bodies);
  }

  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    clients = serviceClients(stack);
    currency = await createCurrency(stack, project);
    await putTerms(stack, project, 'trade', { currency_id: currency.id, end_user: { bps: 100 }, affiliate: { bps: 200 } });
    const referred = await referredUser(clients, project);
    R = referred.user;
    F = referred.affiliate;
    code = referred.code;
    tie = [A.identifier, B.identifier].sort() as [string, string];
    await pay('2026-11-21T23:59:59.999Z', [
      [A, 1_234_567n],
      [B, 1_000_000n],
      [C, 1n],
    ]);
    await pay('2026-11-22T00:00:00.000Z', [
      [B, 234_567n],
      [C, 2_000_000n],
      [R, 500_000n],
    ]);
    await pay('2026-11-23T12:00:00.000Z', [[A, 50_000n]]);
    initFuulSdk(stack, project.keys.readOnly);
  });
  afterAll(async () => {
    clients?.close();
    await stack?.stop();
  });

  const rows = (board: { results: Array<{ rank: number; user_identifier: string; total_amount: number; total_attributions: number }> }) =>
    board.results.map((entry) => [entry.rank, entry.user_identifier, entry.total_amount, entry.total_attributions]);

  it('ranks what was earned within the range, ties by identifier, total_amount in whole units as the SDK types it', async () => {
    const board = await Fuul.getPayoutsLeaderboard({
      currency_address: currency.address,
      user_type: 'end_user',
      from: '2026-11-21',
      to: '2026-11-22',
    });
    expect(rows(board)).toEqual([
      [1, C.identifier, 2.000001, 2],
      [2, tie[0], 1.234567, 1 + Number(tie[0] === B.identifier)],
      [3, tie[1], 1.234567, 1 + Number(tie[1] === B.identifier)],
      [4, R.identifier, 0.5, 1],
    ]);
    expect(board).toMatchObject({ total_results: 4, page: 1, page_size: 25, calculated_at: stack.clock.now().toISOString() });
    expect(board.results[0]).toEqual({
      rank: 1,
      address: C.identifier,
      user_identifier: C.identifier,
      user_identifier_type: 'evm_address',
      total_amount: 2.000001,
      total_amount_base_units: '2000001',
      total_attributions: 2,
      chain_id: '8453',
    });
  });

  it('counts each day whole and only its own movements: one day, an open start, an open end, and all time', async () => {
    const day = await Fuul.getPayoutsLeaderboard({ user_type: 'end_user', from: '2026-11-22', to: '2026-11-22' });
    expect(rows(day)).toEqual([
      [1, C.identifier, 2, 1],
      [2, R.identifier, 0.5, 1],
      [3, B.identifier, 0.234567, 1],
    ]);
    const since = await Fuul.getPayoutsLeaderboard({ user_type: 'end_user', from: '2026-11-23' });
    expect(rows(since)).toEqual([[1, A.identifier, 0.05, 1]]);
    expect(since.total_results).toBe(1);
    const until = await Fuul.getPayoutsLeaderboard({ user_type: 'end_user', to: '2026-11-21' });
    expect(rows(until)).toEqual([
      [1, A.identifier, 1.234567, 1],
      [2, B.identifier, 1, 1],
      [3, C.identifier, 0.000001, 1],
    ]);
    // An instant is read as its UTC day.
    const instant = await Fuul.getPayoutsLeaderboard({ user_type: 'end_user', from: '2026-11-23T23:00:00+00:00', to: '2026-11-23T23:30:00Z' });
    expect(rows(instant)).toEqual(rows(since));
    const empty = await Fuul.getPayoutsLeaderboard({ user_type: 'end_user', from: '2026-11-24' });
    expect(empty).toMatchObject({ results: [], total_results: 0 });
    const allTime = await Fuul.getPayoutsLeaderboard({ user_type: 'end_user' });
    expect(rows(allTime)).toEqual([
      [1, C.identifier, 2.000001, 2],
      [2, A.identifier, 1.284567, 2],
      [3, B.identifier, 1.234567, 2],
      [4, R.identifier, 0.5, 1],
    ]);
  });

  it('pages a range board: the second page keeps the ranks and the size', async () => {
    const second = await Fuul.getPayoutsLeaderboard({ user_type: 'end_user', from: '2026-11-21', to: '2026-11-22', page: 2, page_size: 2 });
    expect(second.results.map((entry) => [entry.rank, entry.user_identifier])).toEqual([
      [3, tie[1]],
      [4, R.identifier],
    ]);
    expect(second).toMatchObject({ total_results: 4, page: 2, page_size: 2 });
  });

  it('answers the user’s own row with its rank in the range, by user_identifier or the deprecated user_address', async () => {
    const own = await Fuul.getPayoutsLeaderboard({
      user_type: 'end_user',
      from: '2026-11-21',
      to: '2026-11-22',
      user_identifier: B.identifier,
      identifier_type: EVM,
    });
    expect(rows(own)).toEqual([[tie.indexOf(B.identifier) + 2, B.identifier, 1.234567, 2]]);
    expect(own.total_results).toBe(1);
    const byAddress = await Fuul.getPayoutsLeaderboard({ user_type: 'end_user', from: '2026-11-22', to: '2026-11-22', user_address: B.identifier });
    expect(rows(byAddress)).toEqual([[3, B.identifier, 0.234567, 1]]);
    // A user who earned nothing in the range has no row.
    const absent = await Fuul.getPayoutsLeaderboard({
      user_type: 'end_user',
      from: '2026-11-23',
      user_identifier: C.identifier,
      identifier_type: EVM,
    });
    expect(absent).toMatchObject({ results: [], total_results: 0 });
  });

  it('user_type chooses the board: the affiliate earned only on the second day', async () => {
    const affiliates = await Fuul.getPayoutsLeaderboard({ user_type: 'affiliate', from: '2026-11-21', to: '2026-11-22' });
    expect(rows(affiliates)).toEqual([[1, F.identifier, 1, 1]]);
    expect(await Fuul.getPayoutsLeaderboard({ user_type: 'affiliate', to: '2026-11-21' })).toMatchObject({ results: [], total_results: 0 });
    const own = await Fuul.getPayoutsLeaderboard({ user_type: 'affiliate', from: '2026-11-22', user_identifier: F.identifier, identifier_type: EVM });
    expect(rows(own)).toEqual([[1, F.identifier, 1, 1]]);
  });

  it('fills the fields asked for from the agency’s figures: the affiliate’s code, referred volume and referred users', async () => {
    const affiliates = await Fuul.getPayoutsLeaderboard({
      user_type: 'affiliate',
      from: '2026-11-22',
      fields: 'affiliate_code,referred_volume,referred_users,tiers',
    });
    expect(affiliates.results).toEqual([
      expect.objectContaining({ rank: 1, user_identifier: F.identifier, affiliate_code: code, referred_volume: 0, referred_users: 1 }),
    ]);
    // An end user who is no affiliate: no code, zeros.
    const users = await Fuul.getPayoutsLeaderboard({ user_type: 'end_user', from: '2026-11-23', fields: 'referred_users' });
    expect(users.results).toEqual([
      {
        rank: 1,
        address: A.identifier,
        user_identifier: A.identifier,
        user_identifier_type: 'evm_address',
        total_amount: 0.05,
        total_amount_base_units: '50000',
        total_attributions: 1,
        chain_id: '8453',
        referred_users: 0,
      },
    ]);
  });

  it('refuses bad ranges and what it cannot answer with a 400 in the standard body', async () => {
    const backwards = await refusal(Fuul.getPayoutsLeaderboard({ user_type: 'end_user', from: '2026-11-23', to: '2026-11-22' }));
    expect(backwards).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field: 'from' })] } });
    const notADay = await refusal(Fuul.getPayoutsLeaderboard({ from: '2026-02-30' }));
    expect(notADay).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field: 'from' })] } });
    const text = await refusal(Fuul.getPayoutsLeaderboard({ to: 'yesterday' }));
    expect(text).toMatchObject({ status: 400, body: { details: [expect.objectContaining({ field: 'to' })] } });
    const tooLong = await refusal(Fuul.getPayoutsLeaderboard({ from: '2000-01-01', to: '2026-11-22' }));
    expect(tooLong).toMatchObject({ status: 400, body: { details: [expect.objectContaining({ field: 'to' })] } });
    const conversion = await refusal(Fuul.getPayoutsLeaderboard({ conversion_external_ids: [1] }));
    expect(conversion).toMatchObject({ status: 400, body: { details: [expect.objectContaining({ field: 'conversion_external_ids' })] } });
    // Several arrive as a repeated parameter: refused all the same (naming the form they came in).
    const conversions = await refusal(Fuul.getPayoutsLeaderboard({ conversion_external_ids: [1, 2] }));
    expect(conversions).toMatchObject({
      status: 400,
      body: { details: [expect.objectContaining({ field: expect.stringMatching(/^conversion_external_ids/) })] },
    });
    const fields = await refusal(Fuul.getPayoutsLeaderboard({ fields: 'referred_users,balance' }));
    expect(fields).toMatchObject({ status: 400, body: { details: [expect.objectContaining({ field: 'fields' })] } });
    const disagree = await refusal(Fuul.getPayoutsLeaderboard({ user_identifier: A.identifier, user_address: B.identifier }));
    expect(disagree).toMatchObject({ status: 400, body: { details: [expect.objectContaining({ field: 'user_address' })] } });
  });

  it('answers a wallet session its own row only (the portal’s rank), in the project it names; anyone else’s is 403', async () => {
    // W earns 0.06 on 2026-11-23, above A's 0.05 that day; all time it is fifth, behind C, A, B and R.
    const wallet = await newWallet();
    await pay('2026-11-23T13:00:00.000Z', [[{ identifier: wallet.address }, 60_000n]]);
    const token = await signIn(stack, wallet);
    const board = (query: string) => stack.api.get(`/api/v1/payouts/leaderboard/payouts?user_type=end_user&${query}`, { key: token });
    const onDay = await board(`project_id=${project.id}&from=2026-11-23`);
    expect(onDay.status).toBe(200);
    expect(rows(onDay.body)).toEqual([[1, wallet.address, 0.06, 1]]);
    expect(onDay.body).toMatchObject({ total_results: 1, calculated_at: stack.clock.now().toISOString() });
    // All time, and naming itself as the SDK would: the same one row, ranked over everyone.
    const allTime = await board(`project_id=${project.id}&user_identifier=${wallet.checksumAddress}`);
    expect(rows(allTime.body)).toEqual([[5, wallet.address, 0.06, 1]]);
    // No earnings in the range: no row, and never the board's page instead.
    expect((await board(`project_id=${project.id}&to=2026-11-22`)).body).toMatchObject({ results: [], total_results: 0 });
    const other = await board(`project_id=${project.id}&user_identifier=${A.identifier}`);
    expect(other.status).toBe(403);
    expect(other.body).toMatchObject({ status: 403, code: 'FORBIDDEN', message: expect.stringContaining('its own wallet') });
    const unnamed = await board('from=2026-11-23');
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.details).toEqual([expect.objectContaining({ field: 'project_id' })]);
    // A key naming another project finds nothing of it.
    const foreign = await stack.api.get(`/api/v1/payouts/leaderboard/payouts?user_type=end_user&project_id=${randomUUID()}`, {
      key: project.keys.readOnly,
    });
    expect(foreign.status).toBe(404);
  });

  /**
   * The all-time volume, revenue and referred-users boards and referred volumes (the agency's metrics
   * projection), in a project of their own: F1 referred u1 and u2, F2 referred u3, F3 referred u4.
   *   u1 volume 100.5 revenue 10 · u2 volume 50 revenue 5.25 · u3 volume 150.5 revenue 15.25 · u4 volume 0.1 revenue 0
   * so F1 and F2 tie on volume (150.5) and revenue (15.25), ranked by affiliate id (the newest first).
   */
  describe('the volume, revenue and referred-users boards', () => {
    let other: TestProject;
    let sdk: typeof Fuul;
    const affiliates: Array<{ id: string; identifier: string; code: string }> = [];
    const referred = [evmUser(), evmUser(), evmUser(), evmUser()];
    /** F1 and F2 in the order their ties are ranked (affiliate id descending). */
    let tied: Array<{ id: string; identifier: string; code: string }>;

    beforeAll(async () => {
      other = await createProject(stack);
      for (const n of [1, 2, 3]) {
        const user = { identifier: randomEvmAddress(), identifierType: 'evm_address' };
        const code = `board${n}${Date.now().toString(36)}`;
        const created = await clients.agency.createAffiliate({ projectId: other.id, user, name: `F${n}`, code });
        affiliates.push({ id: created.id, identifier: user.identifier, code });
      }
      const referrerOf = [0, 0, 1, 2];
      for (const [index, user] of referred.entries()) {
        await clients.agency.createReferral({
          projectId: other.id,
          user: { identifier: user.identifier, identifierType: 'evm_address' },
          code: affiliates[referrerOf[index]!]!.code,
        });
      }
      const usdc = await createCurrency(stack, other);
      await putTerms(stack, other, 'trade', { currency_id: usdc.id, affiliate: { bps: 1_000 } });
      const figures: Array<[string, string]> = [
        ['100.5', '10'],
        ['50', '5.25'],
        ['150.5', '15.25'],
        ['0.1', '0'],
      ];
      await sendAttributedConversions(
        stack,
        other,
        referred.map((user, index) => conversionBody({ user, volume_usd: figures[index]![0], revenue_usd: figures[index]![1], reward_base: '1000' })),
      );
      tied = [affiliates[0]!, affiliates[1]!].sort((a, b) => (a.id < b.id ? 1 : -1));
      // The SDK keeps one configuration per module instance: this project's is a second instance.
      await jest.isolateModulesAsync(async () => {
        sdk = (await import('@fuul/sdk')).Fuul;
      });
      sdk.init({ apiKey: other.keys.readOnly, baseApiUrl: `${stack.baseUrl}/api/v1/` });
    });

    it('getVolumeLeaderboard ranks affiliates by their referred users’ volume, and end users by their own', async () => {
      const board = await sdk.getVolumeLeaderboard({ user_type: 'affiliate' });
      expect(board.results).toEqual([
        {
          rank: 1,
          address: tied[0]!.identifier,
          user_identifier: tied[0]!.identifier,
          user_identifier_type: 'evm_address',
          affiliate_code: tied[0]!.code,
          total_amount: '150.5',
          chain_id: null,
        },
        {
          rank: 2,
          address: tied[1]!.identifier,
          user_identifier: tied[1]!.identifier,
          user_identifier_type: 'evm_address',
          affiliate_code: tied[1]!.code,
          total_amount: '150.5',
          chain_id: null,
        },
        {
          rank: 3,
          address: affiliates[2]!.identifier,
          user_identifier: affiliates[2]!.identifier,
          user_identifier_type: 'evm_address',
          affiliate_code: affiliates[2]!.code,
          total_amount: '0.1',
          chain_id: null,
        },
      ]);
      expect(board).toMatchObject({ total_results: 3, page: 1, page_size: 25, calculated_at: stack.clock.now().toISOString() });
      const users = await sdk.getVolumeLeaderboard({ user_type: 'end_user', page: 1, page_size: 3 });
      expect(users.results.map((entry) => [entry.rank, entry.user_identifier, entry.total_amount, entry.affiliate_code])).toEqual([
        [1, referred[2]!.identifier, '150.5', null],
        [2, referred[0]!.identifier, '100.5', null],
        [3, referred[1]!.identifier, '50', null],
      ]);
      expect(users.total_results).toBe(4);
      const own = await sdk.getVolumeLeaderboard({ user_type: 'end_user', user_identifier: referred[3]!.identifier, identifier_type: EVM });
      expect(own.results.map((entry) => [entry.rank, entry.user_identifier, entry.total_amount])).toEqual([[4, referred[3]!.identifier, '0.1']]);
      const second = await sdk.getVolumeLeaderboard({ user_type: 'affiliate', user_identifier: tied[1]!.identifier, identifier_type: EVM });
      expect(second.results.map((entry) => [entry.rank, entry.total_amount])).toEqual([[2, '150.5']]);
    });

    it('getRevenueLeaderboard ranks by revenue with the conversions behind it; a revenue of 0 is on no board', async () => {
      const board = await sdk.getRevenueLeaderboard({ user_type: 'affiliate' });
      expect(board.results.map((entry) => [entry.rank, entry.address, entry.total_amount, entry.attributions, entry.affiliate_code])).toEqual([
        [1, tied[0]!.identifier, '15.25', tied[0] === affiliates[0] ? 2 : 1, tied[0]!.code],
        [2, tied[1]!.identifier, '15.25', tied[1] === affiliates[0] ? 2 : 1, tied[1]!.code],
      ]);
      expect(board.total_results).toBe(2);
      const users = await sdk.getRevenueLeaderboard({ user_type: 'end_user' });
      expect(users.results.map((entry) => [entry.rank, entry.address, entry.total_amount])).toEqual([
        [1, referred[2]!.identifier, '15.25'],
        [2, referred[0]!.identifier, '10'],
        [3, referred[1]!.identifier, '5.25'],
      ]);
      const absent = await sdk.getRevenueLeaderboard({ user_type: 'affiliate', user_identifier: affiliates[2]!.identifier, identifier_type: EVM });
      expect(absent).toMatchObject({ results: [], total_results: 0 });
    });

    it('getReferredUsersLeaderboard ranks affiliates by the users they referred', async () => {
      const board = await sdk.getReferredUsersLeaderboard({ page: 1, page_size: 10 });
      const [f2, f3] = [affiliates[1]!, affiliates[2]!].sort((a, b) => (a.id < b.id ? 1 : -1));
      expect(board.results.map((entry) => [entry.rank, entry.address, entry.total_referred_users])).toEqual([
        [1, affiliates[0]!.identifier, 2],
        [2, f2!.identifier, 1],
        [3, f3!.identifier, 1],
      ]);
      expect(board).toMatchObject({ total_results: 3, page: 1, page_size: 10 });
    });

    it('getReferredVolume answers each named user’s referred volume in the order named, 0 for one that is no affiliate', async () => {
      const stranger = randomEvmAddress();
      const answer = await sdk.getReferredVolume({
        user_identifiers: [affiliates[2]!.identifier, stranger, affiliates[0]!.identifier],
        identifier_type: EVM,
      });
      expect(answer).toEqual({
        project_id: other.id,
        referred_volumes: [
          { user_identifier: affiliates[2]!.identifier, referred_volume: 0.1 },
          { user_identifier: stranger, referred_volume: 0 },
          { user_identifier: affiliates[0]!.identifier, referred_volume: 150.5 },
        ],
        total_count: 3,
      });
      const tooMany = await refusal(sdk.getReferredVolume({ user_identifiers: Array.from({ length: 101 }, () => randomEvmAddress()) }));
      expect(tooMany).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    });
  });
});
