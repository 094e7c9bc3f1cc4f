import { randomBytes } from 'node:crypto';

/** EVM addresses for tests: pure, so the unit tier (test/unit) takes them without the stack's helpers. */

/** A deterministic, valid, lowercase evm address for index n. */
export function evmAddress(n: number): string {
  return `0x${n.toString(16).padStart(40, '0')}`;
}

/** The same address with mixed letter case (the same user). */
export function mixedCase(address: string): string {
  return `0x${[...address.slice(2)].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('')}`;
}

export function randomEvmAddress(): string {
  return `0x${randomBytes(20).toString('hex')}`;
}
