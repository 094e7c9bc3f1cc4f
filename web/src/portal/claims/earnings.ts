import type { ApiResult } from '../../api/client';

type Totals = ApiResult<'/api/v1/claim-checks/totals', 'get'>;
type TotalItem = Totals['pending'][number];
export type Movement = ApiResult<'/api/v1/payouts/movements', 'get'>['results'][number];

/** One currency's amounts: what can be claimed now, what waits, and what is owed (base units, decimal strings). */
export interface CurrencyEarnings {
  key: string;
  /** Its address and chain name it to the API (the leaderboard position); name and decimals format it. */
  currency: { name: string; decimals: number; address: string; chainId: number };
  available: string;
  pending: string;
  /** What reversals took back after a voucher was out: paid first out of what is earned next. */
  debt: string;
}

/** A pending amount of one currency that becomes available the same way: on one date, or after the program's decision. */
export interface PendingAmount {
  key: string;
  amount: string;
  currency: { name: string; decimals: number };
  /** "available on 2026-12-28", or "waiting for the program’s approval" / "waiting for the program’s review". */
  when: string;
  /** For ordering: the date's time, decisions last. */
  order: number;
}

/** A currency's key: its chain and address; points have neither (one point currency per project). */
const currencyKey = (chainId: string | number | null, address: string | null) => `${chainId ?? 'point'}:${(address ?? 'point').toLowerCase()}`;

/**
 * Per currency, the totals the claim service keeps: available is what is in the wallet's checks and
 * not redeemed yet (`unclaimed`: open, or closed into a voucher still to claim), pending what waits
 * in no check yet, debt what refunds took back once the voucher was out. Amounts are summed as
 * bigints, never floats.
 */
export function earningsByCurrency(totals: Totals): CurrencyEarnings[] {
  const rows = new Map<string, CurrencyEarnings>();
  const row = (item: TotalItem) => {
    const key = currencyKey(item.currency_chain_id, item.currency_address);
    let found = rows.get(key);
    if (!found) {
      const currency = {
        name: item.currency_name,
        decimals: item.currency_decimals,
        address: item.currency_address,
        chainId: Number(item.currency_chain_id),
      };
      found = { key, currency, available: '0', pending: '0', debt: '0' };
      rows.set(key, found);
    }
    return found;
  };
  for (const item of totals.unclaimed) row(item).available = (BigInt(row(item).available) + BigInt(item.amount)).toString();
  for (const item of totals.pending) row(item).pending = (BigInt(row(item).pending) + BigInt(item.amount)).toString();
  for (const item of totals.debt) row(item).debt = (BigInt(row(item).debt) + BigInt(item.amount)).toString();
  return [...rows.values()].sort((a, b) => a.currency.name.localeCompare(b.currency.name) || a.key.localeCompare(b.key));
}

const DECISION_WORDS = { approval: 'waiting for the program’s approval', review: 'waiting for the program’s review' } as const;

/**
 * The pending movements grouped by currency and by when they become available: a hold by the date
 * (UTC, as ISO dates elsewhere in the app), a wait for an approval or a review by that; soonest first.
 */
export function pendingAmounts(movements: readonly Movement[]): PendingAmount[] {
  const groups = new Map<string, PendingAmount>();
  for (const movement of movements) {
    if (movement.status !== 'pending') continue;
    const reason = movement.pending_reason ?? 'hold';
    const date = movement.available_at.slice(0, 10);
    const when = reason === 'hold' ? `available on ${date}` : DECISION_WORDS[reason];
    const key = `${currencyKey(movement.currency.chain_id, movement.currency.address)}|${when}`;
    const found = groups.get(key);
    if (found) {
      found.amount = (BigInt(found.amount) + BigInt(movement.total_amount)).toString();
    } else {
      const order = reason === 'hold' ? Date.parse(date) : Number.MAX_SAFE_INTEGER;
      groups.set(key, {
        key,
        amount: movement.total_amount,
        currency: { name: movement.currency.name, decimals: movement.currency.decimals },
        when,
        order,
      });
    }
  }
  return [...groups.values()].sort((a, b) => a.order - b.order || a.key.localeCompare(b.key));
}
