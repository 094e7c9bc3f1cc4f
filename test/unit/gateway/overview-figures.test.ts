import type { Conversion } from '../../../gen/referral/claim/v1/claim';
import { CurrencyType, MovementStatus } from '../../../gen/referral/claim/v1/enums';
import { conversionFigures, daysOf, sumDecimals } from '../../../gateway/routes/overview/overview.figures';

const usdc = { id: 'c-usdc', chainId: '8453', address: '0xa', name: 'USDC', decimals: 6, type: CurrencyType.ERC20 };
const ada = { identifier: '0xada', identifierType: 'evm_address' };

function conversion(
  receivedAt: string,
  volumeUsd: string | undefined,
  movements: Array<{ amount: string; reversed?: string; declined?: boolean }>,
  affiliate?: typeof ada,
) {
  return {
    receivedAt: new Date(receivedAt),
    volumeUsd,
    attribution: affiliate ? { affiliate: { id: 'a', user: affiliate } } : undefined,
    movements: movements.map((movement) => ({
      currency: usdc,
      amount: movement.amount,
      reversedAmount: movement.reversed ?? '0',
      status: movement.declined ? MovementStatus.DECLINED : MovementStatus.AVAILABLE,
    })),
  } as unknown as Conversion;
}

/** The admin home's figures, summed exactly from the period's conversions (gateway/routes/overview). */
describe('the overview figures', () => {
  it('sums USD decimals exactly', () => {
    expect(sumDecimals([])).toBe('0');
    expect(sumDecimals(['0.1', '0.2'])).toBe('0.3');
    expect(sumDecimals(['1000', '250.25', '80', '5'])).toBe('1335.25');
    expect(sumDecimals(['99999999999999999999.999999', '0.000001'])).toBe('100000000000000000000');
  });

  it('lists every day of the period', () => {
    expect(daysOf('2026-02-27', '2026-03-01')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
  });

  it('counts each conversion on its UTC day, payouts net of reversals without the declined, and ranks affiliates by volume', () => {
    const figures = conversionFigures(
      [
        conversion('2026-03-01T23:59:59Z', '10.5', [{ amount: '2500000', reversed: '500000' }], ada),
        conversion('2026-03-01T00:00:00Z', undefined, [{ amount: '7', declined: true }]),
        conversion('2026-02-28T12:00:00Z', '0.25', [{ amount: '1' }], ada),
        conversion('2026-02-01T12:00:00Z', '1000', [{ amount: '1' }], ada),
      ],
      daysOf('2026-02-28', '2026-03-01'),
    );
    expect(figures).toMatchObject({
      conversions: 3,
      volume_usd: '10.75',
      payouts: [{ currency_id: 'c-usdc', amount: '2000001' }],
      currencies: [{ id: 'c-usdc', name: 'USDC', decimals: 6, chain_id: 8453, address: '0xa' }],
      days: [
        { day: '2026-02-28', conversions: 1, volume_usd: '0.25', payouts: [{ currency_id: 'c-usdc', amount: '1' }] },
        { day: '2026-03-01', conversions: 2, volume_usd: '10.5', payouts: [{ currency_id: 'c-usdc', amount: '2000000' }] },
      ],
      top: [{ user: ada, conversions: 2, volumeUsd: '10.75' }],
    });
  });
});
