/** Display helpers. Amounts stay the API's exact decimal strings: they are grouped, never parsed into floats. */

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

/** "1234567.5" -> "1,234,567.5", digit for digit. */
export function formatDecimal(value: string): string {
  const match = /^(-?)(\d+)(\.\d+)?$/.exec(value);
  if (!match) return value;
  return `${match[1]}${match[2]!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${match[3] ?? ''}`;
}

/** Base units -> a token amount, digit for digit ("1500000", 6 -> "1.5"). */
export function tokenAmount(baseUnits: string, decimals: number): string {
  if (!/^\d+$/.test(baseUnits) || decimals <= 0) return baseUnits;
  const padded = baseUnits.padStart(decimals + 1, '0');
  const whole = padded.slice(0, -decimals);
  const fraction = padded.slice(-decimals).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/** Base units shown in whole tokens of their currency, grouped: ("1500000000", USDC of 6 decimals) -> "1,500 USDC". */
export function formatTokenAmount(baseUnits: string, currency: { decimals: number; name: string }): string {
  return `${formatDecimal(tokenAmount(baseUnits, currency.decimals))} ${currency.name}`;
}

/** 250 -> "2.5%": basis points (a spread, a share) in integer steps, no float rounding. */
export function formatBasisPoints(bps: number): string {
  const whole = Math.floor(bps / 100);
  const hundredths = String(bps % 100)
    .padStart(2, '0')
    .replace(/0$/, '');
  return hundredths === '' || hundredths === '0' ? `${whole}%` : `${whole}.${hundredths}%`;
}

/** What the conversion rate means, for its column help (docs/affiliates.md#clicks-and-conversion-rate). */
export const CONVERSION_RATE_HELP = 'Conversion rate: users referred ÷ clicks, over all time; — when there are no clicks.';

/**
 * A conversion rate: users referred ÷ clicks, over all time, as a percent with one decimal (3 of 40 ->
 * "7.5%"); "—" without clicks. Referrals that came without a click (an invite, the API) count too, so it may pass 100%.
 */
export function formatConversionRate(referred: number, clicks: number | null): string {
  if (clicks === null || clicks === 0) return '—';
  const tenths = Math.round((referred * 1000) / clicks);
  return `${Math.floor(tenths / 10).toLocaleString('en-US')}${tenths % 10 === 0 ? '' : `.${tenths % 10}`}%`;
}

/** A rank in words: 1 -> "1st", 12 -> "12th", 1002 -> "1,002nd". */
export function formatOrdinal(rank: number): string {
  const tens = rank % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[rank % 10] ?? 'th');
  return `${rank.toLocaleString('en-US')}${suffix}`;
}

export function formatUsd(value: string): string {
  return `$${formatDecimal(value)}`;
}

/** A long identifier (an address) shortened for a narrow cell; the full value goes in a title. */
export function shortIdentifier(identifier: string): string {
  return identifier.length > 18 ? `${identifier.slice(0, 10)}…${identifier.slice(-6)}` : identifier;
}

/** An amount earned in one currency, as the API lists it (the currency's details are null until the projection has seen it). */
export interface CurrencyAmount {
  amount: string;
  currency_name: string | null;
  currency_decimals: number | null;
  currency_address: string | null;
}

/** "1,234.5 USDC"; in base units while the currency's decimals are not known. */
export function formatCurrencyAmount(earning: CurrencyAmount): string {
  const currency = earning.currency_name ?? (earning.currency_address ? shortIdentifier(earning.currency_address) : 'an unknown currency');
  if (earning.currency_decimals === null) return `${formatDecimal(earning.amount)} base units of ${currency}`;
  return formatTokenAmount(earning.amount, { decimals: earning.currency_decimals, name: currency });
}
