/** A non-negative USD decimal string as an exact integer of 10^-18 USD, so tests add figures without floats. */
const SCALE = 18;

export function usdUnits(value: string): bigint {
  const match = /^(\d+)(?:\.(\d{1,18}))?$/.exec(value);
  if (!match) throw new Error(`not a non-negative USD decimal with at most ${SCALE} decimals: ${value}`);
  return BigInt(match[1]!) * 10n ** BigInt(SCALE) + BigInt((match[2] ?? '').padEnd(SCALE, '0'));
}

/** The exact sum of USD decimal strings, as units of usdUnits. */
export const sumUsd = (values: readonly string[]): bigint => values.reduce((sum, value) => sum + usdUnits(value), 0n);
