/**
 * The one place the web apps turn figures into text. Money stays the API's exact decimal strings of
 * integer base units: split and grouped digit by digit (bigints where there is arithmetic), never floats.
 */

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

/** The UTC day of an instant or of a day the API gives as YYYY-MM-DD ("2026-11-29"), as formatDateTime writes it. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  if (/^\d{4}-\d{2}-\d{2}$/.test(iso)) return iso;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().slice(0, 10);
}

/** "1234567.5" -> "1,234,567.5", digit for digit; a count (1234 -> "1,234") too. */
export function formatDecimal(value: string | number | bigint): string {
  const text = String(value);
  const match = /^(-?)(\d+)(\.\d+)?$/.exec(text);
  if (!match) return text;
  return `${match[1]}${match[2]!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${match[3] ?? ''}`;
}

/** A count with its noun: (1, 'conversion') -> "1 conversion", (1234, 'conversion') -> "1,234 conversions". */
export function formatCount(count: number | bigint | string, noun: string, plural = `${noun}s`): string {
  return `${formatDecimal(count)} ${String(count) === '1' ? noun : plural}`;
}

/** Base units -> a token amount, digit for digit ("1500000", 6 -> "1.5"; "-1", 6 -> "-0.000001"). */
export function tokenAmount(baseUnits: string, decimals: number): string {
  const match = /^(-?)(\d+)$/.exec(baseUnits);
  if (!match || decimals <= 0) return baseUnits;
  const padded = match[2]!.padStart(decimals + 1, '0');
  const whole = padded.slice(0, -decimals);
  const fraction = padded.slice(-decimals).replace(/0+$/, '');
  return `${match[1]}${fraction ? `${whole}.${fraction}` : whole}`;
}

/**
 * A currency as the API describes it. Its name and decimals are null while a projection has not learnt
 * it yet; `type: 'point'` is the project's point currency (docs/claims.md#points).
 */
export interface MoneyCurrency {
  name: string | null;
  decimals: number | null;
  type?: 'erc20' | 'native' | 'point';
  address?: string | null;
}

/** A currency nothing is known of yet: its amounts are said in smallest units. */
export const UNKNOWN_CURRENCY: MoneyCurrency = { name: null, decimals: null };

/**
 * Base units in whole units of their currency, grouped: ("1500000000", USDC of 6 decimals) -> "1,500 USDC";
 * a point currency in points ("1,200 XP points"); while the decimals are not known, the base units said in
 * words ("1,000 smallest units of USDC (decimals not known yet)").
 */
export function formatTokenAmount(baseUnits: string, currency: MoneyCurrency): string {
  const name = currency.name ?? (currency.address ? shortIdentifier(currency.address) : null);
  if (currency.decimals === null) {
    const smallest = `${formatCount(baseUnits, 'smallest unit')} of ${name ?? 'a currency not known yet'}`;
    return name === null ? smallest : `${smallest} (decimals not known yet)`;
  }
  const amount = formatDecimal(tokenAmount(baseUnits, currency.decimals));
  if (currency.type === 'point') return `${amount} ${pointUnit(currency.name, amount)}`;
  return `${amount} ${name ?? 'in a currency not known yet'}`;
}

/** "XP" -> "XP points" ("XP point" for one); a name that already says points ("Points", "Loyalty points") keeps its words. */
function pointUnit(name: string | null, amount: string): string {
  const one = amount === '1';
  if (!name) return one ? 'point' : 'points';
  const says = /^(.*\bpoint)(s?)$/i.exec(name);
  if (says) return one ? says[1]! : `${says[1]}${says[2] || 's'}`;
  return `${name} ${one ? 'point' : 'points'}`;
}

/** An amount earned in one currency, as the API lists it (the currency's details are null until the projection has seen it). */
export interface CurrencyAmount {
  amount: string;
  currency_name: string | null;
  currency_decimals: number | null;
  currency_address: string | null;
}

/** The currency of an amount the API lists flat (earnings, history rows): a known currency without an address is the point currency. */
export function currencyOfAmount(earning: CurrencyAmount): MoneyCurrency {
  const point = !earning.currency_address && earning.currency_name !== null;
  return { name: earning.currency_name, decimals: earning.currency_decimals, address: earning.currency_address, ...(point ? { type: 'point' } : {}) };
}

/** "1,234.5 USDC", as formatTokenAmount writes it, from the flat shape of an earning. */
export function formatCurrencyAmount(earning: CurrencyAmount): string {
  return formatTokenAmount(earning.amount, currencyOfAmount(earning));
}

/** US dollars as the API's decimal string, always with cents, half a cent rounded away from zero: "1234.5" -> "$1,234.50". */
export function formatUsd(value: string): string {
  const match = /^(-?)(\d+)(?:\.(\d*))?$/.exec(value);
  if (!match) return `$${value}`;
  const fraction = match[3] ?? '';
  let cents = BigInt(match[2]! + fraction.padEnd(2, '0').slice(0, 2));
  if ((fraction[2] ?? '0') >= '5') cents += 1n;
  const whole = formatDecimal(String(cents / 100n));
  const sign = match[1] && cents > 0n ? '-' : '';
  return `${sign}$${whole}.${String(cents % 100n).padStart(2, '0')}`;
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
  return `${formatDecimal(Math.floor(tenths / 10))}${tenths % 10 === 0 ? '' : `.${tenths % 10}`}%`;
}

/** A rank in words: 1 -> "1st", 12 -> "12th", 1002 -> "1,002nd". */
export function formatOrdinal(rank: number): string {
  const tens = rank % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[rank % 10] ?? 'th');
  return `${formatDecimal(rank)}${suffix}`;
}

/** A long identifier (an address) shortened for a narrow cell; the full value goes in a title. */
export function shortIdentifier(identifier: string): string {
  return identifier.length > 18 ? `${identifier.slice(0, 10)}…${identifier.slice(-6)}` : identifier;
}
