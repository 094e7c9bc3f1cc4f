import { useStackWithProject } from '../helpers/fixtures';
import { useServiceClients } from '../helpers/rpc';
import { conversionBody, createCurrency, putTerms, referredUser, settled } from './claim-fixtures';

/**
 * Payout caps over HTTP against the whole stack: terms saved with caps (and refused with bad ones),
 * conversions whose movements the caps cut, shown with capped_amount and capped_by on the conversion
 * and the user's movement list, and counted as capped by the reconciliation. The many cases are in
 * test/medium/claim/caps.test.ts.
 */
describe('payout caps (HTTP)', () => {
  const { stack, project } = useStackWithProject();
  const clients = useServiceClients(stack);

  const put = (name: string, body: Record<string, unknown>) =>
    stack.api.request('PUT', `/api/v1/projects/${project.id}/payout-terms/${name}`, { key: project.keys.admin, body });

  it('refuses caps of 0, past 2^256 − 1 or with a window outside 1..365 days, naming the field, and saves nothing', async () => {
    const currency = await createCurrency(stack, project);
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ per_end_user: '0' }, 'caps.per_end_user', 'VALIDATION_FAILED'],
      [{ per_conversion: (2n ** 256n).toString() }, 'caps.per_conversion', 'AMOUNT_OUT_OF_RANGE'],
      [{ per_affiliate_window: { amount: '10', days: 0 } }, 'caps.per_affiliate_window.days', 'VALIDATION_FAILED'],
      [{ per_affiliate_window: { amount: '10', days: 366 } }, 'caps.per_affiliate_window.days', 'VALIDATION_FAILED'],
      [{ per_affiliate_window: { amount: '10' } }, 'caps.per_affiliate_window.days', 'VALIDATION_FAILED'],
      [{ per_conversion: 5 }, 'caps.per_conversion', 'VALIDATION_FAILED'],
    ];
    for (const [caps, field, code] of cases) {
      const response = await put('refused', { currency_id: currency.id, end_user: { fixed: '1' }, caps });
      expect({ status: response.status, code: response.body.code, fields: response.body.details.map((d: { field: string }) => d.field) }).toEqual({
        status: 400,
        code,
        fields: [field],
      });
    }
    expect((await stack.api.get(`/api/v1/projects/${project.id}/payout-terms/refused`, { key: project.keys.admin })).status).toBe(404);
  });

  it('saves caps with the terms, cuts the movements they exceed, and shows and reconciles what was cut', async () => {
    const currency = await createCurrency(stack, project);
    const caps = { per_conversion: '800', per_end_user: '1000', per_affiliate_window: { amount: '5000', days: 30 } };
    expect(
      await putTerms(stack, project, 'trade', { currency_id: currency.id, end_user: { fixed: '600' }, affiliate: { fixed: '900' }, caps }),
    ).toMatchObject({
      caps,
    });
    const read = await stack.api.get(`/api/v1/projects/${project.id}/payout-terms/trade`, { key: project.keys.admin });
    expect(read.body.caps).toEqual(caps);

    const { user } = await referredUser(clients, project);
    const send = async () => {
      const body = conversionBody({ user: { identifier: user.identifier, identifier_type: 'evm_address' } });
      expect((await stack.api.post('/api/v1/conversions', { key: project.keys.service, body })).status).toBe(202);
      return settled(stack, project, body.id);
    };
    const first = await send();
    expect(first.movements).toEqual([
      expect.objectContaining({ kind: 'affiliate_payout', amount: '800', capped_amount: '100', capped_by: 'per_conversion' }),
      expect.objectContaining({ kind: 'end_user_payout', amount: '600', capped_amount: null, capped_by: null }),
    ]);
    const second = await send();
    expect(second.movements).toEqual([
      expect.objectContaining({ kind: 'affiliate_payout', amount: '800', capped_amount: '100', capped_by: 'per_conversion' }),
      expect.objectContaining({ kind: 'end_user_payout', amount: '400', capped_amount: '200', capped_by: 'per_end_user' }),
    ]);
    // Capped to nothing: still listed, amount 0.
    const third = await send();
    expect(third.movements).toContainEqual(
      expect.objectContaining({ kind: 'end_user_payout', amount: '0', capped_amount: '600', capped_by: 'per_end_user' }),
    );

    const listed = await stack.api.get(`/api/v1/payouts/movements?user_identifier=${user.identifier}`, { key: project.keys.service });
    expect(listed.status).toBe(200);
    expect(
      (listed.body.results as Array<{ conversion_id: string; total_amount: string; capped_amount: string | null; capped_by: string | null }>)
        .map((item) => [item.conversion_id, item.total_amount, item.capped_amount, item.capped_by])
        .sort(),
    ).toEqual(
      [
        [first.id, '600', null, null],
        [second.id, '400', '200', 'per_end_user'],
        [third.id, '0', '600', 'per_end_user'],
      ].sort(),
    );
    const totals = await stack.api.get(`/api/v1/claim-checks/totals?user_identifier=${user.identifier}`, { key: project.keys.readOnly });
    expect(totals.body.unclaimed).toEqual([expect.objectContaining({ amount: '1000' })]);

    const books = await stack.api.get(`/api/v1/projects/${project.id}/ledger/reconciliation?currency_id=${currency.id}`, {
      key: project.keys.admin,
    });
    expect(books.status).toBe(200);
    expect(
      (books.body.results as Array<{ kind: string; earned: string; capped: string; available: string }>).map((line) => [
        line.kind,
        line.earned,
        line.capped,
        line.available,
      ]),
    ).toEqual([
      ['affiliate_payout', '2700', '300', '2400'],
      ['end_user_payout', '1800', '800', '1000'],
      ['agency_payout', '0', '0', '0'],
    ]);
    expect(books.body.balanced).toBe(true);
  });
});
