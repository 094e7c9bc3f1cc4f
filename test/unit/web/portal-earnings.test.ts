import { earningsByCurrency, type Movement, pendingAmounts } from '../../../web/src/portal/claims/earnings';

const TUSD = { id: 'c1', chain_id: 8453, address: '0x00000000000000000000000000000000000000aa', name: 'TUSD', decimals: 6, type: 'erc20' as const };
const WETH = { id: 'c2', chain_id: 8453, address: '0x00000000000000000000000000000000000000bb', name: 'WETH', decimals: 18, type: 'erc20' as const };

function movement(fields: Partial<Movement> & Pick<Movement, 'total_amount'>): Movement {
  return {
    date: '2026-11-28T10:00:00.000Z',
    kind: 'affiliate_payout',
    is_referrer: true,
    rebate: false,
    level: 1,
    user_identifier: '0x00000000000000000000000000000000000000cc',
    user_identifier_type: 'evm_address',
    conversion_id: 'order-1',
    conversion_name: 'trade',
    currency_address: TUSD.address,
    chain_id: TUSD.chain_id,
    currency: TUSD,
    payout_status: 'pending',
    payout_status_details: null,
    status: 'pending',
    pending_reason: 'hold',
    available_at: '2026-12-28T10:00:00.000Z',
    reversed_amount: '0',
    capped_amount: null,
    capped_by: null,
    project_id: 'p',
    ...fields,
  };
}

/** An amount of a currency as the earnings endpoint lists it. */
const item = (currency: typeof TUSD, amount: string) => ({
  currency_address: currency.address,
  currency_chain_id: String(currency.chain_id),
  currency_name: currency.name,
  currency_decimals: currency.decimals,
  amount,
});

/** A currency's line of earningsByCurrency: its key (chain 8453 and address), the currency, and these figures (0 unless given). */
const line = (currency: typeof TUSD, figures: { available?: string; pending?: string; debt?: string }) => ({
  key: `8453:${currency.address}`,
  currency: { name: currency.name, decimals: currency.decimals, address: currency.address, chainId: 8453 },
  available: '0',
  pending: '0',
  debt: '0',
  ...figures,
});

/**
 * The portal's earnings: per currency what can be claimed and what waits (exact, summed as bigints),
 * and the pending movements grouped by the date they become available or the decision they wait for.
 */
describe('the affiliate portal’s earnings', () => {
  it('puts each currency’s unclaimed and pending totals side by side, exactly', () => {
    expect(
      earningsByCurrency({
        claimed: [item(TUSD, '5')],
        unclaimed: [item(WETH, '9007199254740993000000000000000001'), item(TUSD, '1500000')],
        pending: [item(TUSD, '2500000')],
        debt: [],
      }),
    ).toEqual([line(TUSD, { available: '1500000', pending: '2500000' }), line(WETH, { available: '9007199254740993000000000000000001' })]);
  });

  it('carries each currency’s debt beside what is available, a currency owed in alone included', () => {
    expect(
      earningsByCurrency({
        claimed: [item(TUSD, '1000')],
        unclaimed: [item(TUSD, '0')],
        pending: [],
        debt: [item(TUSD, '2500000'), item(WETH, '9007199254740993')],
      }),
    ).toEqual([line(TUSD, { debt: '2500000' }), line(WETH, { debt: '9007199254740993' })]);
  });

  it('groups pending movements by currency and date (UTC), decisions last, and leaves out available and declined ones', () => {
    const groups = pendingAmounts([
      movement({ total_amount: '1000', available_at: '2026-12-28T23:59:00.000Z' }),
      movement({ total_amount: '9007199254740993', available_at: '2026-12-28T00:01:00.000Z' }),
      movement({ total_amount: '7', pending_reason: 'approval', available_at: '2026-12-01T00:00:00.000Z' }),
      movement({ total_amount: '3', pending_reason: 'review' }),
      movement({ total_amount: '40', available_at: '2026-12-02T00:00:00.000Z' }),
      movement({ total_amount: '5', currency: WETH, currency_address: WETH.address }),
      movement({ total_amount: '100', status: 'available', pending_reason: null, payout_status: 'open' }),
      movement({ total_amount: '200', status: 'declined', pending_reason: null, payout_status: 'declined' }),
    ]);
    expect(groups.map(({ amount, currency, when }) => [amount, currency.name, when])).toEqual([
      ['40', 'TUSD', 'available on 2026-12-02'],
      ['9007199254741993', 'TUSD', 'available on 2026-12-28'],
      ['5', 'WETH', 'available on 2026-12-28'],
      ['7', 'TUSD', 'waiting for the program’s approval'],
      ['3', 'TUSD', 'waiting for the program’s review'],
    ]);
  });
});
