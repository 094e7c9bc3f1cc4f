/** Deterministic test data: evm addresses spread like real ones (hash-distributed, not sequential). */
import { createHash } from 'node:crypto';

/** A lowercase evm address for (namespace, n): 0x + the 40 hex digits of a SHA-1. */
export function address(namespace: string, n: number): string {
  return `0x${createHash('sha1').update(`${namespace}:${n}`).digest('hex')}`;
}

/** The same address with mixed letter case (the same user to the API). */
export function mixedCase(value: string): string {
  let out = '0x';
  for (let i = 2; i < value.length; i += 1) out += i % 2 ? value[i]!.toUpperCase() : value[i]!;
  return out;
}

/** A small fast PRNG (mulberry32), so every run draws the same users. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function percentile(sorted: Float64Array | number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

/** A growable buffer of latency samples (ms), sorted once at the end. */
export class Samples {
  private values = new Float64Array(1 << 16);
  length = 0;

  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }

  sorted(): Float64Array {
    return this.values.slice(0, this.length).sort();
  }
}
