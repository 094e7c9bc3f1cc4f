import type { UserIdentifier } from '../../rules/identifiers';
import type { CapKind, MovementKind } from './vocabulary';

/** What payout terms pay at most (docs/claims.md#caps); each null while off. */
export interface PayoutCaps {
  /** No single movement of one conversion (end user's, affiliate's, master's) pays more. */
  perConversion: bigint | null;
  /** The most one end user earns (end_user_payout) under the terms, ever. */
  perEndUser: bigint | null;
  /** The most one affiliate earns (affiliate_payout) under the terms over the last `days` days. */
  perAffiliateWindow: { amount: bigint; days: number } | null;
}

/** The terms' caps as a payment carries them: the terms' name (the totals are per terms) and the caps. */
export interface TermsCaps {
  termsName: string;
  caps: PayoutCaps;
}

/** What a cap did to one movement: what is left to pay, and what was cut (never paid) by which cap first. */
export interface CappedAmount {
  amount: bigint;
  capped: bigint;
  cappedBy: CapKind | null;
}

export const NO_CAPS: PayoutCaps = { perConversion: null, perEndUser: null, perAffiliateWindow: null };

export function hasCaps(caps: PayoutCaps): boolean {
  return caps.perConversion !== null || caps.perEndUser !== null || caps.perAffiliateWindow !== null;
}

/** The running total a movement is held to, if any: an end user's lifetime total, an affiliate's window. */
function runningCap(caps: PayoutCaps, kind: MovementKind): { limit: bigint; by: CapKind } | null {
  if (kind === 'end_user_payout' && caps.perEndUser !== null) return { limit: caps.perEndUser, by: 'per_end_user' };
  if (kind === 'affiliate_payout' && caps.perAffiliateWindow !== null) return { limit: caps.perAffiliateWindow.amount, by: 'per_affiliate_window' };
  return null;
}

/**
 * The total a movement of `kind` to `beneficiary` under `termsName` counts toward (and is held to),
 * as one key; null when its caps keep no running total for it (the per-conversion cap needs none).
 * Kinds are apart: a wallet that is both an end user and an affiliate has two totals.
 */
export function totalKey(termsName: string, caps: PayoutCaps, kind: MovementKind, beneficiary: UserIdentifier): string | null {
  if (runningCap(caps, kind) === null) return null;
  return JSON.stringify([termsName, kind, beneficiary.identifierType, beneficiary.identifier]);
}

/** Days the running total of `kind` looks back; null: the whole lifetime. */
export function windowDays(caps: PayoutCaps, kind: MovementKind): number | null {
  return kind === 'affiliate_payout' ? (caps.perAffiliateWindow?.days ?? null) : null;
}

/**
 * One movement capped: first to the per-conversion cap, then to what its running total (`earned`
 * so far, never negative) leaves under its end-user or window cap. `cappedBy` names the first cap that
 * cut it; what is cut is gone (a later payment never makes it up).
 */
export function capAmount(amount: bigint, kind: MovementKind, caps: PayoutCaps, earned: bigint): CappedAmount {
  let left = amount;
  let cappedBy: CapKind | null = null;
  if (caps.perConversion !== null && left > caps.perConversion) {
    left = caps.perConversion;
    cappedBy = 'per_conversion';
  }
  const running = runningCap(caps, kind);
  if (running !== null) {
    const room = running.limit > earned ? running.limit - earned : 0n;
    if (left > room) {
      left = room;
      cappedBy ??= running.by;
    }
  }
  return { amount: left, capped: amount - left, cappedBy };
}

/** One movement of a batch to cap: its amount, kind, caps and the running total it counts toward (totalKey). */
export interface CapItem {
  amount: bigint;
  kind: MovementKind;
  caps: PayoutCaps;
  key: string | null;
}

/**
 * A batch's movements capped cumulatively, in the order given (the caller's: conversion id, then
 * kind): each starts from its total's `prior` (what was earned before the batch; absent: 0) plus
 * what earlier items of the batch were paid toward it.
 */
export function capInOrder(items: readonly CapItem[], prior: ReadonlyMap<string, bigint>): CappedAmount[] {
  const totals = new Map(prior);
  return items.map((item) => {
    const earned = item.key === null ? 0n : (totals.get(item.key) ?? 0n);
    const result = capAmount(item.amount, item.kind, item.caps, earned);
    if (item.key !== null) totals.set(item.key, earned + result.amount);
    return result;
  });
}
