import { parseAmount, toMoney, wholeUnits } from '../../../services/rules/money';

describe('money on the wire (referral.common.v1.Money)', () => {
  it('writes base units as a decimal string, exactly, beyond what a double holds', () => {
    expect(toMoney(1_500_000_000_000_000_000_123n, 'usdc')).toEqual({ amount: '1500000000000000000123', currencyId: 'usdc' });
    expect(toMoney(-7n).amount).toBe('-7');
  });

  it.each(['0', '1', '-1', '115792089237316195423570985008687907853269984665640564039457584007913129639935'])(
    'reads %s back as the same bigint',
    (text) => {
      expect(parseAmount(text, 'amount')).toEqual({ amount: BigInt(text) });
    },
  );

  it.each(['', '1.5', '1e18', '01', '-0', '+1', ' 1', '0x10', '9'.repeat(79)])('refuses %j naming the field', (text) => {
    expect(parseAmount(text, 'entries[2].amount')).toEqual({
      violation: { field: 'entries[2].amount', reason: expect.stringContaining('base units') },
    });
  });
});

describe('whole units of a currency (wholeUnits)', () => {
  it.each([
    [150000n, 6, '0.15'],
    [1500000n, 6, '1.5'],
    [1000000n, 6, '1'],
    [1n, 18, '0.000000000000000001'],
    [0n, 6, '0'],
    [42n, 0, '42'],
    [-2500n, 3, '-2.5'],
    [
      115792089237316195423570985008687907853269984665640564039457584007913129639935n,
      18,
      '115792089237316195423570985008687907853269984665640564039457.584007913129639935',
    ],
  ])('%s base units with %i decimals are %s', (amount, decimals, expected) => {
    expect(wholeUnits(amount, decimals)).toBe(expected);
  });
});
