import type { CsvField } from './csv-line';

interface Earning {
  amount: string;
  currency_name: string | null;
  currency_chain_id: number | null;
  currency_address: string | null;
}
interface Tier {
  name: string;
}

/** The fields of a listed affiliate (GET /api/v1/projects/:projectId/affiliates, affiliateListItemSchema) the export writes. */
export interface ExportedAffiliate {
  id: string;
  identifier: string;
  identifier_type: string;
  name: string;
  region: string | null;
  status: string;
  suspended_at: string | null;
  suspension_reason: string | null;
  flagged_at: string | null;
  flag_reason: string | null;
  tax_status: string;
  joined_at: string;
  updated_at: string;
  codes: ReadonlyArray<{ code: string }>;
  is_master: boolean;
  master: { id: string; identifier: string } | null;
  current_tier: Tier | null;
  active_tier: Tier | null;
  tier_protection_days_remaining: number | null;
  volume_usd: string;
  revenue_usd: string;
  conversions: number;
  end_users: number;
  converting_users: number;
  referred_volume_usd: string;
  earnings: readonly Earning[];
  agency_earnings: readonly Earning[];
}

/**
 * The affiliate export's columns, in order: the list's fields, flattened, as the CLI's `referral export-affiliates` and the
 * admin dashboard's export both write them. Amounts are the API's exact strings: USD as decimals ("1234.5"), earnings as
 * integer base units of their currency, written `amount currency_name (chain_id:address)` and separated by "; " when an
 * affiliate earned in several.
 */
export const AFFILIATE_COLUMNS: ReadonlyArray<[string, (affiliate: ExportedAffiliate) => CsvField]> = [
  ['id', (a) => a.id],
  ['identifier', (a) => a.identifier],
  ['identifier_type', (a) => a.identifier_type],
  ['name', (a) => a.name],
  ['region', (a) => a.region],
  ['status', (a) => a.status],
  ['suspended_at', (a) => a.suspended_at],
  ['suspension_reason', (a) => a.suspension_reason],
  ['flagged_at', (a) => a.flagged_at],
  ['flag_reason', (a) => a.flag_reason],
  ['tax_status', (a) => a.tax_status],
  ['joined_at', (a) => a.joined_at],
  ['updated_at', (a) => a.updated_at],
  ['codes', (a) => a.codes.map((code) => code.code).join(' ')],
  ['is_master', (a) => a.is_master],
  ['master_id', (a) => a.master?.id ?? null],
  ['master_identifier', (a) => a.master?.identifier ?? null],
  ['current_tier', (a) => a.current_tier?.name ?? null],
  ['active_tier', (a) => a.active_tier?.name ?? null],
  ['tier_protection_days_remaining', (a) => a.tier_protection_days_remaining],
  ['volume_usd', (a) => a.volume_usd],
  ['revenue_usd', (a) => a.revenue_usd],
  ['conversions', (a) => a.conversions],
  ['end_users', (a) => a.end_users],
  ['converting_users', (a) => a.converting_users],
  ['referred_volume_usd', (a) => a.referred_volume_usd],
  ['earnings', (a) => a.earnings.map(earningText).join('; ')],
  ['agency_earnings', (a) => a.agency_earnings.map(earningText).join('; ')],
];

function earningText(earning: Earning): string {
  const currency = `${earning.currency_chain_id ?? '?'}:${earning.currency_address ?? '?'}`;
  return `${earning.amount} ${earning.currency_name ?? 'unknown'} (${currency})`;
}
