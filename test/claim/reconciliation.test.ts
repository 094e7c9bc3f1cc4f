import { randomUUID } from 'node:crypto';
import { useStackWithProject } from '../helpers/fixtures';
import { useServiceClients } from '../helpers/rpc';
import { conversionBody, createCurrency, putTerms, referredUser, settled } from './claim-fixtures';

/**
 * The ledger's reconciliation over HTTP against the whole stack: figures as decimal strings per
 * currency and kind after a payment available at once and one waiting for approval, admin keys
 * only, and an unknown currency refused. The many cases (closes, claims, expiries, releases) are in
 * test/medium/claim/reconciliation.test.ts.
 */
describe('ledger reconciliation (HTTP)', () => {
  const { stack, project } = useStackWithProject();
  const clients = useServiceClients(stack);

  const reconciliation = (query = '', key = project.keys.admin) =>
    stack.api.get(`/api/v1/projects/${project.id}/ledger/reconciliation${query}`, { key });
  const zeros = {
    earned: '0',
    capped: '0',
    reversed: '0',
    declined: '0',
    pending: '0',
    available: '0',
    in_open_checks: '0',
    in_closed_checks: '0',
    claimed: '0',
    expired: '0',
    credited_back: '0',
    debt: '0',
    balanced: true,
  };

  it('answers the figures per currency and kind, balanced, to admin keys only; an unknown currency is 404', async () => {
    const currency = await createCurrency(stack, project);
    const rewards = { currency_id: currency.id, end_user: { bps: 100 }, affiliate: { bps: 1_000 } };
    await putTerms(stack, project, 'trade', rewards);
    await putTerms(stack, project, 'vetted', { ...rewards, require_approval: true });
    const { user } = await referredUser(clients, project);
    const who = { identifier: user.identifier, identifier_type: 'evm_address' };
    for (const body of [
      conversionBody({ user: who, reward_base: '1000000' }),
      conversionBody({ user: who, name: 'vetted', reward_base: '3000000' }),
    ]) {
      expect((await stack.api.post('/api/v1/conversions', { key: project.keys.service, body })).status).toBe(202);
      await settled(stack, project, body.id);
    }

    const response = await reconciliation(`?currency_id=${currency.id}`);
    expect(response.status).toBe(200);
    const currencyRef = { id: currency.id, chain_id: 8453, address: currency.address, name: 'USDC', decimals: 6, type: 'erc20' };
    expect(response.body).toEqual({
      results: [
        {
          currency: currencyRef,
          kind: 'affiliate_payout',
          ...zeros,
          earned: '400000',
          pending: '300000',
          available: '100000',
          in_open_checks: '100000',
        },
        { currency: currencyRef, kind: 'end_user_payout', ...zeros, earned: '40000', pending: '30000', available: '10000', in_open_checks: '10000' },
        { currency: currencyRef, kind: 'agency_payout', ...zeros },
      ],
      balanced: true,
    });
    // Without currency_id: every currency of the project (it has one).
    expect((await reconciliation()).body).toEqual(response.body);

    // Admin keys only: the integrator's and read-only keys are 403.
    for (const key of [project.keys.service, project.keys.readOnly]) {
      const refused = await reconciliation('', key);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    }
    // A currency that is not the project's, or no id at all: 404 with the standard error body.
    for (const id of [randomUUID(), 'not-a-uuid']) {
      const missing = await reconciliation(`?currency_id=${id}`);
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ status: 404, code: 'CURRENCY_NOT_FOUND' });
    }
  }, 60_000);
});
