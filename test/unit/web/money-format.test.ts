import { historySentence } from '../../../web/src/admin/affiliates/history';
import {
  formatCount,
  formatCurrencyAmount,
  formatDate,
  formatDateTime,
  formatDecimal,
  formatTokenAmount,
  formatUsd,
  UNKNOWN_CURRENCY,
} from '../../../web/src/ui/format';

const USDC = { name: 'USDC', decimals: 6, type: 'erc20' as const };
const DAI = { name: 'DAI', decimals: 18, type: 'erc20' as const };
const XP = { name: 'XP', decimals: 0, type: 'point' as const };

/** The one formatter of the web apps (issue 26): money, dollars, counts and days read the same on every screen. */
describe('figures in words in the web apps', () => {
  it.each([
    ['1500000', USDC, '1.5 USDC'],
    ['1234500000', USDC, '1,234.5 USDC'],
    ['36756419', USDC, '36.756419 USDC'],
    ['1', USDC, '0.000001 USDC'],
    ['0', USDC, '0 USDC'],
    ['-2500000', USDC, '-2.5 USDC'],
    ['1000000000000000', DAI, '0.001 DAI'],
    ['1000000000000000000', DAI, '1 DAI'],
    ['75000000000000000', DAI, '0.075 DAI'],
    // Past what a float holds exactly: 2^53 + 1 whole tokens and one base unit of 18 decimals.
    ['9007199254740993000000000000000001', DAI, '9,007,199,254,740,993.000000000000000001 DAI'],
    ['9007199254740993', { name: 'WEI', decimals: 0 }, '9,007,199,254,740,993 WEI'],
    ['1200', XP, '1,200 XP points'],
    ['1', XP, '1 XP point'],
    ['0', XP, '0 XP points'],
    ['5', { name: 'Loyalty Points', decimals: 0, type: 'point' as const }, '5 Loyalty Points'],
    ['1', { name: 'Loyalty Points', decimals: 0, type: 'point' as const }, '1 Loyalty Point'],
  ])('writes %s base units of %o as "%s"', (baseUnits, currency, text) => {
    expect(formatTokenAmount(baseUnits, currency)).toBe(text);
  });

  it('says in words when a currency’s decimals are not known, never "base units of"', () => {
    expect(formatTokenAmount('36756419', { name: 'USDC', decimals: null })).toBe('36,756,419 smallest units of USDC (decimals not known yet)');
    expect(formatTokenAmount('1', { name: null, decimals: null, address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913' })).toBe(
      '1 smallest unit of 0x833589fc…a02913 (decimals not known yet)',
    );
    expect(formatTokenAmount('1000', UNKNOWN_CURRENCY)).toBe('1,000 smallest units of a currency not known yet');
  });

  it('reads the flat amounts the API lists: a known currency without an address is the point currency', () => {
    const flat = (amount: string, name: string | null, decimals: number | null, address: string | null) => ({
      amount,
      currency_name: name,
      currency_decimals: decimals,
      currency_address: address,
    });
    expect(formatCurrencyAmount(flat('1000000000000000', 'DAI', 18, '0x6b175474e89094c44da98b954eedeac495271d0f'))).toBe('0.001 DAI');
    expect(formatCurrencyAmount(flat('250', 'XP', 0, null))).toBe('250 XP points');
    expect(formatCurrencyAmount(flat('250', null, null, null))).toBe('250 smallest units of a currency not known yet');
  });

  it.each([
    ['0', '$0.00'],
    ['1234.5', '$1,234.50'],
    ['20', '$20.00'],
    ['0.004', '$0.00'],
    ['0.005', '$0.01'],
    ['1.995', '$2.00'],
    ['999999.999', '$1,000,000.00'],
    ['-12.345', '-$12.35'],
    ['-0.001', '$0.00'],
    ['90071992547409931.25', '$90,071,992,547,409,931.25'],
  ])('writes %s US dollars as %s, always with cents', (value, text) => {
    expect(formatUsd(value)).toBe(text);
  });

  it('writes counts with their noun, one or many', () => {
    expect(formatCount(1, 'conversion')).toBe('1 conversion');
    expect(formatCount(2, 'conversion')).toBe('2 conversions');
    expect(formatCount(0, 'conversion')).toBe('0 conversions');
    expect(formatCount(12345, 'payout')).toBe('12,345 payouts');
    expect(formatCount('1', 'referred user')).toBe('1 referred user');
    expect(formatCount(3, 'child', 'children')).toBe('3 children');
    expect(formatDecimal(1234567)).toBe('1,234,567');
  });

  it('writes days and instants in ISO, UTC', () => {
    expect(formatDate('2026-11-29')).toBe('2026-11-29');
    expect(formatDate('2026-11-29T23:59:59.000Z')).toBe('2026-11-29');
    expect(formatDate('2026-11-30T01:00:00+02:00')).toBe('2026-11-29');
    expect(formatDate(null)).toBe('—');
    expect(formatDateTime('2026-11-29T23:59:59.000Z')).toBe('2026-11-29 23:59 UTC');
  });
});

describe('an affiliate’s history in sentences', () => {
  const payouts = (data: Record<string, unknown>) =>
    historySentence({
      type: 'payouts',
      data: { date: '2026-11-29', currency_id: 'c', currency_chain_id: 8453, kind: 'affiliate_payout', ...data },
    });

  it('writes a day’s earnings in the currency’s decimals, with the conversions counted', () => {
    expect(payouts({ currency_name: 'DAI', currency_decimals: 18, currency_address: '0x6b17', amount: '1000000000000000', conversions: 1 })).toBe(
      'Earned 0.001 DAI from 1 conversion on 2026-11-29.',
    );
    expect(payouts({ currency_name: 'USDC', currency_decimals: 6, currency_address: '0x8335', amount: '1500000', conversions: 2 })).toBe(
      'Earned 1.5 USDC from 2 conversions on 2026-11-29.',
    );
    expect(
      payouts({
        kind: 'agency_payout',
        currency_name: 'USDC',
        currency_decimals: 6,
        currency_address: '0x8335',
        amount: '22500',
        conversions: 3,
      }),
    ).toBe('Earned 0.0225 USDC as a master, from 3 conversions of its sub-affiliates on 2026-11-29.');
    expect(payouts({ currency_name: null, currency_decimals: null, currency_address: null, amount: '7', conversions: 1 })).toBe(
      'Earned 7 smallest units of a currency not known yet from 1 conversion on 2026-11-29.',
    );
  });

  it('writes the other entries as sentences, without ids', () => {
    const master = { id: 'm', identifier: '0xabcdef0123456789abcdef0123456789abcdef01', identifier_type: 'evm_address' };
    expect(historySentence({ type: 'joined', data: { name: 'Ada', region: 'EU' } })).toBe('Joined the program as Ada (region EU).');
    expect(historySentence({ type: 'joined', data: { name: null, region: null } })).toBe('Joined the program.');
    expect(historySentence({ type: 'code_created', data: { code: 'ada10' } })).toBe('Registered the code ada10.');
    expect(historySentence({ type: 'flagged', data: { reason: 'Many sign-ups', by_api_key_id: 'k' } })).toBe('Flagged for review: Many sign-ups.');
    expect(
      historySentence({ type: 'unflagged', data: { flag_reason: 'Many sign-ups', flagged_at: '2026-11-29T02:30:00.000Z', suspended: false } }),
    ).toBe('Flag ended (flagged on 2026-11-29 02:30 UTC: Many sign-ups).');
    expect(historySentence({ type: 'unflagged', data: { flag_reason: null, flagged_at: null, suspended: true } })).toBe(
      'Flag ended with a suspension.',
    );
    expect(historySentence({ type: 'master_spread_changed', data: { spread_bps: 450, previous_spread_bps: 300 } })).toBe(
      'Master spread changed from 3% to 4.5%.',
    );
    expect(historySentence({ type: 'bound_to_master', data: { master, by_api_key_id: 'k' } })).toBe('Bound to the master 0xabcdef01…cdef01.');
    expect(historySentence({ type: 'unbound_from_master', data: { master, master_removed: true, became_master: false } })).toBe(
      'Unbound from the master 0xabcdef01…cdef01, when the master status was removed.',
    );
    expect(historySentence({ type: 'sub_affiliate_bound', data: { affiliate: master } })).toBe('Sub-affiliate 0xabcdef01…cdef01 bound to it.');
    expect(historySentence({ type: 'application_approved', data: { application_id: 'a', audience_id: 's', granted_code: 'ada' } })).toBe(
      'Application approved, with the code ada.',
    );
  });
});
