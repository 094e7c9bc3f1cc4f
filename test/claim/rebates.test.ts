import pg from 'pg';
import { SERVICE_CATALOG } from '../../services/platform/service-catalog';
import { startStackWithProject, type TestProject } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import { serviceClients, type ServiceClients } from '../helpers/rpc';
import type { TestStack } from '../helpers/stack';
import { conversionBody, createCurrency, evmUser, putTerms, referredUser, sendAttributedConversions } from './claim-fixtures';

/**
 * Rebates over HTTP (docs/claims.md#rebates), through the whole stack: the rate of the code the user was
 * referred with (affiliate_codes.user_rebate_rate_bps, set in SQL here: the affiliate-codes routes set it
 * through the SDK) is answered by the agency's attribution, frozen on the conversion, and the user's
 * share of the affiliate's reward shows in the movements list as an end_user_payout with `rebate: true`;
 * the affiliate's movement, its conversion's reward side and the agency's earnings figure count what it kept.
 */
describe('rebates over HTTP', () => {
  let stack: TestStack;
  let project: TestProject;
  let clients: ServiceClients;
  let sql: pg.Pool;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    clients = serviceClients(stack);
    sql = new pg.Pool({ connectionString: stack.databaseUrl, max: 1 });
  });
  afterAll(async () => {
    clients.close();
    await sql.end();
    await stack.stop();
  });

  const movements = async (identifier: string) => {
    const response = await stack.api.get(`/api/v1/payouts/movements?user_identifier=${identifier}`, { key: project.keys.service });
    expect(response.status).toBe(200);
    return response.body.results as Array<Record<string, unknown>>;
  };

  it('lists the user’s rebate, marked, beside the affiliate’s movement net of it', async () => {
    const currency = await createCurrency(stack, project);
    await putTerms(stack, project, 'trade', { currency_id: currency.id, affiliate: { fixed: '1001' } });
    const { affiliate, code, user } = await referredUser(clients, project);
    await sql.query(`UPDATE ${SERVICE_CATALOG.agency.schema}.affiliate_codes SET user_rebate_rate_bps = 1500 WHERE project_id = $1 AND code = $2`, [
      project.id,
      code,
    ]);
    const body = conversionBody({ user: evmUser(user.identifier) });
    await sendAttributedConversions(stack, project, [body]);

    // floor(1001 × 15%) = 150 to the user, 851 kept.
    expect(await movements(user.identifier)).toEqual([
      expect.objectContaining({ kind: 'end_user_payout', rebate: true, is_referrer: false, total_amount: '150', conversion_id: body.id }),
    ]);
    expect(await movements(affiliate.identifier)).toEqual([
      expect.objectContaining({ kind: 'affiliate_payout', rebate: false, is_referrer: true, total_amount: '851', conversion_id: body.id }),
    ]);

    const conversion = await stack.api.get(`/api/v1/conversions/${body.id}`, { key: project.keys.readOnly });
    expect(conversion.status).toBe(200);
    expect(conversion.body.attribution).toMatchObject({ user_rebate_rate_bps: 1500 });
    expect(conversion.body.rewards).toMatchObject({ end_user: { amount: '0' }, affiliate: { amount: '851' } });
    expect(
      conversion.body.movements.map((movement: { kind: string; rebate: boolean; amount: string }) => [
        movement.kind,
        movement.rebate,
        movement.amount,
      ]),
    ).toEqual(
      expect.arrayContaining([
        ['affiliate_payout', false, '851'],
        ['end_user_payout', true, '150'],
      ]),
    );

    // The agency's earnings figure counts what the affiliate kept.
    const earnings = await pollUntil(
      async () => {
        const list = await stack.api.get(`/api/v1/projects/${project.id}/affiliates?page_size=100`, { key: project.keys.admin });
        const item = list.body.results.find((entry: { identifier: string }) => entry.identifier === affiliate.identifier);
        return item?.earnings?.length ? item.earnings : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 50, what: 'the affiliate’s earnings' },
    );
    expect(earnings).toEqual([expect.objectContaining({ amount: '851' })]);
  });
});
