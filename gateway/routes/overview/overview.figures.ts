import type { Conversion, CurrencyRef } from '../../../gen/referral/claim/v1/claim';
import { CurrencyType, MovementStatus } from '../../../gen/referral/claim/v1/enums';
import { count } from '../../http/present';
import type { Overview } from './overview.schemas';

const DAY_MS = 86_400_000;

/** Every UTC day from `from` to `to`, both included (YYYY-MM-DD). */
export function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`); at += DAY_MS)
    days.push(new Date(at).toISOString().slice(0, 10));
  return days;
}

/** A decimal string (USD) as an integer of 10^-scale units: exact, never a float. */
function scaled(value: string, scale: number): bigint {
  const [whole, fraction = ''] = value.split('.');
  return BigInt(`${whole}${fraction.padEnd(scale, '0')}`);
}

/** The exact sum of decimal strings ("1.5" + "2.25" -> "3.75"). */
export function sumDecimals(values: readonly string[]): string {
  const scale = Math.max(0, ...values.map((value) => value.split('.')[1]?.length ?? 0));
  const total = values.reduce((sum, value) => sum + scaled(value, scale), 0n);
  if (scale === 0) return total.toString();
  const digits = total.toString().padStart(scale + 1, '0');
  const fraction = digits.slice(-scale).replace(/0+$/, '');
  return fraction ? `${digits.slice(0, -scale)}.${fraction}` : digits.slice(0, -scale);
}

/** What a conversion pays per currency: its movements net of reversals, the declined ones left out. */
function payoutsOf(conversion: Conversion, into: Map<string, bigint>, currencies: Map<string, CurrencyRef>): void {
  for (const movement of conversion.movements) {
    if (movement.status === MovementStatus.DECLINED || !movement.currency) continue;
    currencies.set(movement.currency.id, movement.currency);
    const net = BigInt(movement.amount) - BigInt(movement.reversedAmount || '0');
    into.set(movement.currency.id, (into.get(movement.currency.id) ?? 0n) + net);
  }
}

/** The amounts that are not zero, by their currency's name (then id): the same order whichever conversion came first. */
function amounts(byCurrency: Map<string, bigint>, currencies: Map<string, CurrencyRef>) {
  const label = (id: string) => `${currencies.get(id)?.name ?? ''}\u0000${id}`;
  return [...byCurrency]
    .filter(([, amount]) => amount !== 0n)
    .sort(([a], [b]) => (label(a) < label(b) ? -1 : 1))
    .map(([currency_id, amount]) => ({ currency_id, amount: amount.toString() }));
}

function presentCurrency(currency: CurrencyRef) {
  const point = currency.type === CurrencyType.POINT;
  return {
    id: currency.id,
    name: currency.name,
    decimals: currency.decimals,
    chain_id: point ? null : count(currency.chainId, 'chain_id'),
    address: point ? null : currency.address,
  };
}

export interface TopAffiliate {
  user: { identifier: string; identifierType: string };
  conversions: number;
  volumeUsd: string;
}

/**
 * The period's figures from its conversions (each counted on the UTC day it was received): per day and in
 * all, conversions, USD volume and payouts per currency; and the affiliates the most volume was attributed to.
 */
export function conversionFigures(conversions: readonly Conversion[], days: readonly string[]) {
  const currencies = new Map<string, CurrencyRef>();
  const perDay = new Map(days.map((day) => [day, { conversions: 0, volumes: [] as string[], payouts: new Map<string, bigint>() }]));
  const total = new Map<string, bigint>();
  const affiliates = new Map<string, { user: { identifier: string; identifierType: string }; conversions: number; volumes: string[] }>();
  for (const conversion of conversions) {
    const day = perDay.get(conversion.receivedAt?.toISOString().slice(0, 10) ?? '');
    if (!day) continue;
    day.conversions += 1;
    if (conversion.volumeUsd) day.volumes.push(conversion.volumeUsd);
    payoutsOf(conversion, day.payouts, currencies);
    payoutsOf(conversion, total, currencies);
    const user = conversion.attribution?.affiliate?.user;
    if (user) {
      const key = `${user.identifierType}:${user.identifier}`;
      const entry = affiliates.get(key) ?? {
        user: { identifier: user.identifier, identifierType: user.identifierType },
        conversions: 0,
        volumes: [],
      };
      entry.conversions += 1;
      if (conversion.volumeUsd) entry.volumes.push(conversion.volumeUsd);
      affiliates.set(key, entry);
    }
  }
  const dayFigures: Overview['figures']['days'] = [...perDay].map(([day, figures]) => ({
    day,
    conversions: figures.conversions,
    volume_usd: sumDecimals(figures.volumes),
    payouts: amounts(figures.payouts, currencies),
  }));
  const top: TopAffiliate[] = [...affiliates.values()]
    .map((entry) => ({ user: entry.user, conversions: entry.conversions, volumeUsd: sumDecimals(entry.volumes) }))
    .sort((a, b) => {
      const byVolume = scaled(b.volumeUsd, 40) - scaled(a.volumeUsd, 40);
      return byVolume !== 0n ? (byVolume > 0n ? 1 : -1) : b.conversions - a.conversions;
    })
    .slice(0, 5);
  return {
    conversions: dayFigures.reduce((sum, day) => sum + day.conversions, 0),
    volume_usd: sumDecimals(dayFigures.map((day) => day.volume_usd)),
    currencies: [...currencies.values()].map(presentCurrency),
    payouts: amounts(total, currencies),
    days: dayFigures,
    top,
  };
}
