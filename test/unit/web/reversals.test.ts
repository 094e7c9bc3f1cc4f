import { ApiError } from '../../../web/src/api/client';
import { BOOK_ROWS, byCurrency, type ReconciliationLine, rowValue } from '../../../web/src/admin/payouts/reconciliation';
import { parseSharePercent, partSources, remainingBps, reversalError, type ReversedPart } from '../../../web/src/admin/payouts/reversal';

const part = (fields: Partial<ReversedPart>): ReversedPart => ({
  kind: 'affiliate_payout',
  rebate: false,
  level: 1,
  user_identifier: '0x00000000000000000000000000000000000000cc',
  user_identifier_type: 'evm_address',
  currency_id: 'c1',
  amount: '500',
  was: 'available',
  claim_check_id: 'check-1',
  from_check: '0',
  to_debt: '0',
  ...fields,
});
const units = (baseUnits: string) => `${baseUnits} u`;

/**
 * The dashboard's reversals: a share typed in percent becomes exact basis points within what is left,
 * each reversed part says where its money came from, the API's refusals read as sentences; and the
 * reconciliation's rows add up the figures of each identity exactly.
 */
describe('reversals in the dashboard', () => {
  it.each([
    ['100', 10_000],
    ['50', 5_000],
    ['12.5', 1_250],
    ['0.01', 1],
    [' 33.33 ', 3_333],
    ['7.', 700],
  ])('reads a share of %s%% as %i basis points', (text, bps) => {
    expect(parseSharePercent(text, 10_000)).toEqual({ bps });
  });

  it('refuses a share that is not a percentage, is 0, has more than two decimals or passes what is left', () => {
    for (const text of ['', 'all', '-5', '1e2', '12.345', '1000']) expect(parseSharePercent(text, 10_000)).toHaveProperty('error');
    expect(parseSharePercent('0', 10_000)).toEqual({ error: 'Enter a share above 0%.' });
    expect(parseSharePercent('100.01', 10_000)).toEqual({ error: 'At most 100%: all of the conversion.' });
    expect(parseSharePercent('60', 5_000)).toEqual({ error: 'At most 50%: earlier reversals already took back 50%.' });
    expect(parseSharePercent('50', 5_000)).toEqual({ bps: 5_000 });
  });

  it('knows what earlier reversals left', () => {
    expect(remainingBps([])).toBe(10_000);
    expect(remainingBps([{ share_bps: 2_500 }, { share_bps: 1_250 }])).toBe(6_250);
    expect(remainingBps([{ share_bps: 10_000 }])).toBe(0);
  });

  it('says where each part came from: pending, the open check, debt, or both of the last', () => {
    expect(partSources(part({ was: 'pending', claim_check_id: null, amount: '500' }), units)).toEqual(['500 u from pending (not paid yet)']);
    expect(partSources(part({ from_check: '500' }), units)).toEqual(['500 u from the open check']);
    expect(partSources(part({ to_debt: '500' }), units)).toEqual(['500 u became debt (its voucher was already out)']);
    expect(partSources(part({ from_check: '200', to_debt: '300' }), units)).toEqual([
      '200 u from the open check',
      '300 u became debt (its voucher was already out)',
    ]);
  });

  it('puts the API’s refusals in words, the share left in percent; field refusals and other errors stay as they are', () => {
    const exceeded = new ApiError(409, 'REVERSAL_SHARE_EXCEEDED', 'already take back 7500 of 10000 bps', [
      { field: 'share_bps', reason: 'must be at most 2500' },
    ]);
    expect((reversalError(exceeded) as Error).message).toBe(
      'Too much: with the earlier reversals this would take back more than all of the conversion. At most 25% is left. Nothing was reversed.',
    );
    expect((reversalError(new ApiError(409, 'REVERSAL_ID_REUSED', 'reused')) as Error).message).toMatch(
      /^An earlier attempt from this dialog went through/,
    );
    expect((reversalError(new ApiError(409, 'CONVERSION_NOT_PROCESSED', 'not yet')) as Error).message).toBe(
      'This conversion is not processed yet: it has paid nothing, so there is nothing to reverse.',
    );
    expect((reversalError(new ApiError(0, 'NETWORK_ERROR', 'unreachable')) as Error).message).toMatch(/nothing is taken twice/);
    const invalid = new ApiError(400, 'VALIDATION_FAILED', 'invalid', [{ field: 'reason', reason: 'must say why' }]);
    expect(reversalError(invalid)).toBe(invalid);
    const other = new Error('boom');
    expect(reversalError(other)).toBe(other);
  });
});

describe('the reconciliation’s rows', () => {
  const currency = { id: 'c1', chain_id: 8453, address: '0xaa', name: 'USDC', decimals: 6, type: 'erc20' as const };
  const line = (kind: ReconciliationLine['kind'], fields: Partial<ReconciliationLine> = {}): ReconciliationLine => ({
    currency,
    kind,
    earned: '9007199254740993',
    capped: '0',
    reversed: '3',
    declined: '0',
    pending: '0',
    available: '9007199254740990',
    in_open_checks: '9007199254740000',
    in_closed_checks: '990',
    claimed: '0',
    expired: '0',
    credited_back: '0',
    debt: '0',
    balanced: true,
    ...fields,
  });

  it('adds each identity’s terms exactly, past what a float holds', () => {
    const sum = (label: string) =>
      rowValue(
        BOOK_ROWS.find((row) => row.label === label)!,
        line('affiliate_payout'),
      );
    expect(sum('Earned')).toBe('9007199254740993');
    expect(sum('Capped + reversed + declined + pending + available')).toBe('9007199254740993');
    expect(sum('Available + credited back + debt')).toBe('9007199254740990');
    expect(sum('Open + closed + claimed + expired checks')).toBe('9007199254740990');
  });

  it('groups the lines by currency in the API’s order', () => {
    const other = { ...currency, id: 'c2', name: 'WETH' };
    const groups = byCurrency([line('affiliate_payout'), line('end_user_payout'), line('affiliate_payout', { currency: other })]);
    expect(groups.map((group) => [group.currency.name, group.lines.map((entry) => entry.kind)])).toEqual([
      ['USDC', ['affiliate_payout', 'end_user_payout']],
      ['WETH', ['affiliate_payout']],
    ]);
  });
});
