import { AFFILIATE_COLUMNS } from '../../../cli/affiliates/affiliate-csv';
import { affiliatePage } from '../../../cli/affiliates/affiliate-page';

/** The export reads the affiliate list as the API answers it: earnings' chain ids are JSON numbers (null while the currency is unknown). */
describe('the export’s reading of an affiliate list page', () => {
  const earning = (chainId: number | null, amount: string) => ({
    currency_address: chainId === null ? null : `0x${'ab'.repeat(20)}`,
    currency_chain_id: chainId,
    currency_name: chainId === null ? null : 'USDC',
    currency_decimals: chainId === null ? null : 6,
    amount,
  });
  const listed = {
    id: 'a1',
    identifier: `0x${'12'.repeat(20)}`,
    identifier_type: 'evm_address',
    name: 'Ada',
    region: null,
    status: 'active',
    suspended_at: null,
    suspension_reason: null,
    flagged_at: null,
    flag_reason: null,
    tax_status: 'not_required',
    codes: [{ code: 'ada' }],
    master: null,
    is_master: false,
    current_tier: null,
    active_tier: null,
    tier_protection_days_remaining: null,
    joined_at: '2026-11-21T12:00:00.000Z',
    updated_at: '2026-11-21T12:00:00.000Z',
    volume_usd: '10',
    revenue_usd: '1',
    conversions: 1,
    end_users: 1,
    converting_users: 1,
    referred_volume_usd: '0',
    earnings: [earning(8453, '1500000'), earning(null, '7')],
    agency_earnings: [],
  };

  it('takes numeric chain ids and writes each earning as amount, currency and chain:address', () => {
    const page = affiliatePage.parse({ results: [listed], total_results: 1, page: 1, page_size: 25 });
    const earnings = AFFILIATE_COLUMNS.find(([name]) => name === 'earnings')![1](page.results[0]!);
    expect(earnings).toBe(`1500000 USDC (8453:0x${'ab'.repeat(20)}); 7 unknown (?:?)`);
  });

  it('refuses a chain id written as a string, as the API no longer writes it', () => {
    expect(
      affiliatePage.safeParse({
        results: [{ ...listed, earnings: [{ ...earning(8453, '1'), currency_chain_id: '8453' }] }],
        total_results: 1,
        page: 1,
        page_size: 25,
      }).success,
    ).toBe(false);
  });
});
