import { AFFILIATE_COLUMNS } from '../../../cli/affiliates/affiliate-csv';
import type { ListedAffiliate } from '../../../cli/affiliates/affiliate-page';
import { csvLine } from '../../../services/rules/csv-line';
import { AFFILIATE_CSV_COLUMNS } from '../../../web/src/admin/affiliates/affiliate-csv';

/** The admin's CSV export and the CLI's `referral export-affiliates` write the same file (the web may not import the CLI). */
describe('the affiliate CSV of the admin dashboard', () => {
  const affiliate = {
    id: '5a0c2a2e-0000-4000-8000-000000000001',
    identifier: '0xab',
    identifier_type: 'evm_address',
    name: 'Anna, "the" Affiliate',
    region: 'DE',
    status: 'flagged',
    suspended_at: null,
    suspension_reason: null,
    flagged_at: '2026-11-21T12:00:00.000Z',
    flag_reason: 'Line one\nline two',
    tax_status: 'approved',
    joined_at: '2026-11-20T12:00:00.000Z',
    updated_at: '2026-11-21T12:00:00.000Z',
    codes: [{ code: 'ANNA' }, { code: 'ANNA2' }],
    is_master: false,
    master: { id: 'm-1', identifier: '0xcd' },
    current_tier: { id: 't', name: 'Gold', rank: 2 },
    active_tier: null,
    tier_protection_days_remaining: 3,
    volume_usd: '1234.5',
    revenue_usd: '0.000001',
    conversions: 7,
    end_users: 2,
    converting_users: 1,
    referred_volume_usd: '0',
    earnings: [
      { currency_address: '0xusdc', currency_chain_id: 8453, currency_name: 'USDC', currency_decimals: 6, amount: '123456789012345678901' },
      { currency_address: null, currency_chain_id: null, currency_name: null, currency_decimals: null, amount: '5' },
    ],
    agency_earnings: [],
  };

  it('has the CLI export’s columns in its order, and writes each row as the CLI does, amounts exact', () => {
    expect(AFFILIATE_CSV_COLUMNS.map(([name]) => name)).toEqual(AFFILIATE_COLUMNS.map(([name]) => name));
    const web = csvLine(
      AFFILIATE_CSV_COLUMNS.map(([, value]) => value(affiliate as unknown as Parameters<(typeof AFFILIATE_CSV_COLUMNS)[number][1]>[0])),
    );
    const cli = csvLine(AFFILIATE_COLUMNS.map(([, value]) => value(affiliate as unknown as ListedAffiliate)));
    expect(web).toBe(cli);
    expect(web).toContain(',"Anna, ""the"" Affiliate",DE,flagged,');
    expect(web).toContain(',"Line one\nline two",');
    expect(web).toContain(',123456789012345678901 USDC (8453:0xusdc); 5 unknown (?:?),\r\n');
  });

  it('quotes what RFC 4180 asks to, and leaves the rest as it is', () => {
    expect(csvLine(['plain', 'a,b', 'say "hi"', ' edge', null, undefined, 0, true])).toBe('plain,"a,b","say ""hi"""," edge",,,0,true\r\n');
  });
});
