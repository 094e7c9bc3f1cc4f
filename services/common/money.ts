import type { Money } from '../../gen/referral/common/v1/common';
import type { FieldViolation } from './errors';

/**
 * Money is integer base units of a currency: bigint in TypeScript, NUMERIC(78,0) in PostgreSQL (read
 * back as bigint: services/common/db/type-parsers.ts), and a decimal string on the wire
 * (referral.common.v1.Money) and in JSON. Never a float.
 */
const DECIMAL_UNITS = /^(?:0|-?[1-9][0-9]*)$/;
/** NUMERIC(78,0) holds at most 78 digits. */
const MAX_DIGITS = 78;

/** The wire form of an amount. */
export function toMoney(amount: bigint, currencyId?: string): Money {
  return { amount: amount.toString(), currencyId };
}

/** A decimal string as bigint, or the violation that names the field; "1e18", "1.5", "01" and "" are refused. */
export function parseAmount(value: string, field: string): { amount: bigint } | { violation: FieldViolation } {
  const digits = value.startsWith('-') ? value.length - 1 : value.length;
  if (!DECIMAL_UNITS.test(value) || digits > MAX_DIGITS) {
    return { violation: { field, reason: `must be a whole number of base units written in decimal digits (at most ${MAX_DIGITS})` } };
  }
  return { amount: BigInt(value) };
}
