import type { ApiResult } from '../../api/client';

/** A listed affiliate (columns.tsx's AffiliateRow, named here from the API's types so that tests outside the web's JSX settings can load this file). */
type AffiliateRow = ApiResult<'/api/v1/projects/{projectId}/affiliates', 'get'>['results'][number];
type Earning = AffiliateRow['earnings'][number];
type Field = string | number | boolean | null | undefined;

/**
 * The export's columns, in order: the list's fields, flattened, as the CLI's `referral export-affiliates`
 * writes them (cli/affiliates/affiliate-csv.ts; the web may not import the CLI, and
 * test/unit/web/affiliate-csv.test.ts keeps the two alike). Amounts are the API's exact strings.
 */
export const AFFILIATE_CSV_COLUMNS: ReadonlyArray<[string, (affiliate: AffiliateRow) => Field]> = [
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

/** One CSV record as RFC 4180 writes it (CRLF-ended; a field with a comma, quote, line break or edge space quoted, quotes doubled). */
export function csvLine(fields: readonly Field[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

function csvField(value: Field): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
