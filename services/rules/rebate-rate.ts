import { USER_REBATE_RATE_RULES } from './contract-limits';

const BPS_PER_UNIT = 10_000;
const STEPS_PER_UNIT = 10 ** USER_REBATE_RATE_RULES.decimals;

/**
 * A user rebate rate as the @fuul/sdk sends it (a number from 0 to 0.2 with at most two decimals) in
 * basis points, or undefined when it is not one (out of range, more decimals, not finite). The check
 * is on the number's hundredths, so binary fractions like 0.07 pass exactly.
 */
export function rebateRateToBps(rate: number): number | undefined {
  if (!Number.isFinite(rate) || rate < 0 || rate > USER_REBATE_RATE_RULES.maxRate) return undefined;
  const steps = Math.round(rate * STEPS_PER_UNIT);
  if (Math.abs(rate * STEPS_PER_UNIT - steps) > 1e-9) return undefined;
  return steps * (BPS_PER_UNIT / STEPS_PER_UNIT);
}

/** Basis points as the @fuul/sdk's rate (a fraction): 500 is 0.05; null stays null. */
export function bpsToRebateRate(bps: number | null): number | null {
  return bps === null ? null : bps / BPS_PER_UNIT;
}
