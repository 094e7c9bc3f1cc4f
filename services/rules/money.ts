import type { Money } from '../../gen/referral/common/v1/common';
import { type FieldViolation, FieldRule } from './errors';

/**
 * Money is integer base units of a currency: bigint in TypeScript, NUMERIC(78,0) in PostgreSQL (read
 * back as bigint: services/platform/db/type-parsers.ts), and a decimal string on the wire
 * (referral.common.v1.Money) and in JSON. Never a float.
 *
 * An amount is at most 2^256 − 1 (MAX_AMOUNT): what a voucher's uint256 `amount` can carry. Every
 * amount a caller sends is held to it here (parseAmount), so nothing past it is stored or paid; sums
 * of amounts may grow past it only where the code says how: a claim check's never does (a full check
 * makes way for a new one), while running sums that are only read (leaderboard totals, affiliates'
 * earnings, users' earnings per day) are plain NUMERIC in PostgreSQL, whole base units, unbounded.
 */
const DECIMAL_UNITS = /^(?:0|-?[1-9][0-9]*)$/;
/** NUMERIC(78,0) holds at most 78 digits (2^256 − 1 has 78). */
const MAX_DIGITS = 78;

/** 2^256 − 1: the largest amount a voucher (Solidity uint256) pays, and so the largest any amount may be. */
export const MAX_AMOUNT = 2n ** 256n - 1n;

/**
 * Amounts past MAX_AMOUNT: a request refused for them alone answers AMOUNT_OUT_OF_RANGE (refuseFields
 * in ./errors.ts), one with other problems too VALIDATION_FAILED.
 */
export const AMOUNT_RANGE = new FieldRule('AMOUNT_OUT_OF_RANGE');

/** The wire form of an amount. */
export function toMoney(amount: bigint, currencyId?: string): Money {
  return { amount: amount.toString(), currencyId };
}

/**
 * A decimal string as bigint, or the violation that names the field; "1e18", "1.5", "01" and "" are
 * refused, and so is anything past 2^256 − 1 (an AMOUNT_RANGE violation). The sign is the caller's
 * rule ("must not be negative").
 */
export function parseAmount(value: string, field: string): { amount: bigint } | { violation: FieldViolation } {
  const digits = value.startsWith('-') ? value.length - 1 : value.length;
  if (!DECIMAL_UNITS.test(value) || digits > MAX_DIGITS) {
    return { violation: { field, reason: `must be a whole number of base units written in decimal digits (at most ${MAX_DIGITS})` } };
  }
  const amount = BigInt(value);
  if (amount > MAX_AMOUNT) {
    return { violation: AMOUNT_RANGE.violation(field, `must be at most 2^256 − 1 = ${MAX_AMOUNT} base units (the most a voucher can pay)`) };
  }
  return { amount };
}

/**
 * An amount of base units in whole units of its currency, as an exact decimal string without trailing
 * zeros (1500000 with 6 decimals is "1.5"): for the few answers the Fuul SDK types as a JSON number,
 * which are made from this string and say so beside the exact base units.
 */
export function wholeUnits(amount: bigint, decimals: number): string {
  const negative = amount < 0n;
  const digits = (negative ? -amount : amount).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/**
 * Base units as a JSON number of whole currency units (1500000 at 6 decimals is 1.5), the nearest
 * double: only where the Fuul SDK types an amount as a number (the leaderboards' total_amount), and
 * always beside the exact base units as a decimal string.
 */
export function unitsAsNumber(baseUnits: string, decimals: number): number {
  return Number(wholeUnits(BigInt(baseUnits), decimals));
}
