import { conversionBody, createCurrency, evmUser, putTerms, settled } from '../claim/claim-fixtures';
import { randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';

/**
 * What dynamic conditions read, end to end: referrals and conversions sent through the
 * API, paid by the claim service, their events relayed to the audience's consumer, and the
 * audience's projection (user_metrics and the day tables) showing them. The tables are only read.
 */
describe('condition inputs from referrals and conversions (HTTP)', () => {
  let stack: TestStack;
  let project: TestProject;
  let usdc: { id: string };
  const START = '2026-11-21T23:50:00.000Z';

  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    stack.clock.set(START);
    usdc = await createCurrency(stack, project, { name: 'USDC' });
    await putTerms(stack, project, 'trade', { currency_id: usdc.id, end_user: { bps: 100 }, affiliate: { bps: 1_000 } });
  });
  afterAll(() => stack.stop());

  const metricsOf = async (identifier: string) =>
    (
      await stack.db.query(
        `SELECT volume_usd::text, revenue_usd::text, conversions::int, referred_users::int, referred_volume_usd::text
         FROM audience.user_metrics WHERE project_id = $1 AND identifier_type = 'evm_address' AND identifier = $2`,
        [project.id, identifier],
      )
    ).rows[0];
  const rowsOf = async (table: string, columns: string, identifier: string) =>
    (
      await stack.db.query(`SELECT ${columns} FROM audience.${table} WHERE project_id = $1 AND identifier = $2 ORDER BY 1, 2`, [
        project.id,
        identifier,
      ])
    ).rows;

  it('counts referrals made through POST /api/v1/referrals and through a conversion’s referral_code, and the conversions’ figures, exactly', async () => {
    const alice = { identifier: randomEvmAddress(), code: `alice${Date.now().toString(36)}` };
    const created = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
      key: project.keys.admin,
      body: { identifier: alice.identifier, identifier_type: 'evm_address', name: 'Alice', code: alice.code },
    });
    expect(created.status).toBe(201);
    const [u1, u2] = [evmUser(), evmUser()];
    const referred = await stack.api.post('/api/v1/referrals', {
      key: project.keys.service,
      body: { user_identifier: u1.identifier, user_identifier_type: 'evm_address', code: alice.code },
    });
    expect(referred.status).toBe(201);

    stack.clock.advance(20 * 60_000); // 00:10 the next day (UTC)
    const conversions = [
      conversionBody({ user: u1, volume_usd: '100.1', revenue_usd: '0.3', reward_base: '10000', occurred_at: '2026-11-21T23:55:00.000Z' }),
      conversionBody({ user: u2, referral_code: alice.code, volume_usd: '0.2', revenue_usd: '0.1', reward_base: '2000' }),
      conversionBody({ user: u1, name: 'deposit', volume_usd: '5', reward_base: '1' }),
    ];
    const sent = await stack.api.post('/api/v1/conversions/batch', { key: project.keys.service, body: { conversions } });
    expect([200, 202]).toContain(sent.status);
    for (const conversion of conversions) await settled(stack, project, conversion.id);

    const aliceMetrics = await pollUntil(
      async () => {
        const row = await metricsOf(alice.identifier);
        return row?.referred_users === 2 && row.referred_volume_usd === '105.3' ? row : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 50, what: 'Alice’s referrals and referred volume in the audience projection' },
    );
    // u1's three conversions were all Alice's (u1 was referred before them); u2's came with her code.
    expect(aliceMetrics).toEqual({ volume_usd: '0', revenue_usd: '0', conversions: 0, referred_users: 2, referred_volume_usd: '105.3' });
    await pollUntil(async () => ((await metricsOf(u1.identifier))?.conversions === 2 ? true : undefined), {
      timeoutMs: 15_000,
      intervalMs: 50,
      what: 'u1’s conversions',
    });
    expect(await metricsOf(u1.identifier)).toEqual({
      volume_usd: '105.1',
      revenue_usd: '0.3',
      conversions: 2,
      referred_users: 0,
      referred_volume_usd: '0',
    });
    expect(await metricsOf(u2.identifier)).toEqual({
      volume_usd: '0.2',
      revenue_usd: '0.1',
      conversions: 1,
      referred_users: 0,
      referred_volume_usd: '0',
    });

    // Days are UTC days of each conversion's occurred_at, and of each referral.
    expect(await rowsOf('user_conversion_days', 'name, day::text, conversions::int, volume_usd::text', u1.identifier)).toEqual([
      { name: 'deposit', day: '2026-11-22', conversions: 1, volume_usd: '5' },
      { name: 'trade', day: '2026-11-21', conversions: 1, volume_usd: '100.1' },
    ]);
    expect(await rowsOf('user_referral_days', 'day::text, referred_users::int, referred_volume_usd::text', alice.identifier)).toEqual([
      { day: '2026-11-21', referred_users: 1, referred_volume_usd: '100.1' },
      { day: '2026-11-22', referred_users: 1, referred_volume_usd: '5.2' },
    ]);
    // Earnings: 10% of each reward_base to Alice (1,000 + 200 + 0), 1% to each user (floored: 100, 20, 0).
    expect(await rowsOf('user_earning_days', 'day::text, currency_id, amount::text', alice.identifier)).toEqual([
      { day: '2026-11-21', currency_id: usdc.id, amount: '1000' },
      { day: '2026-11-22', currency_id: usdc.id, amount: '200' },
    ]);
    expect(await rowsOf('user_earning_days', 'day::text, currency_id, amount::text', u2.identifier)).toEqual([
      { day: '2026-11-22', currency_id: usdc.id, amount: '20' },
    ]);
  });
});
