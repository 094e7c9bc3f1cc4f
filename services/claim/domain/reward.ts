import type { FieldViolation } from '../../rules/errors';
import { parseAmount } from '../../rules/money';

/** What a payout pays: fixed base units, or basis points of the conversion's reward_base. */
export type Reward = { fixed: bigint } | { bps: number };

/** A reward as a request carries it (proto's oneof): fixed as a decimal string, or bps. */
export interface RewardInput {
  fixed?: string | undefined;
  bps?: number | undefined;
}

export const MAX_BPS = 10_000;

/** The amount a reward pays on a conversion: a fixed reward as it is, a rate floored (every division floors). */
export function rewardAmount(reward: Reward, rewardBase: bigint): bigint {
  return 'fixed' in reward ? reward.fixed : shareOf(rewardBase, reward.bps);
}

/** floor(base * bps / 10,000) for a non-negative base: what flooring leaves over stays with the project. */
export function shareOf(base: bigint, bps: number): bigint {
  if (base < 0n) throw new RangeError('a reward base is never negative');
  return (base * BigInt(bps)) / BigInt(MAX_BPS);
}

/** A reward checked: exactly one of fixed (non-negative base units) or bps (0 to 10,000). */
export function checkReward(
  input: RewardInput,
  field: string,
): { reward: Reward; violations: [] } | { reward: undefined; violations: FieldViolation[] } {
  const hasFixed = input.fixed !== undefined;
  const hasBps = input.bps !== undefined;
  if (hasFixed === hasBps) {
    return { reward: undefined, violations: [{ field, reason: 'must be { "fixed": "<base units>" } or { "bps": 0..10000 }, exactly one of them' }] };
  }
  if (hasBps) {
    const bps = input.bps!;
    if (!Number.isInteger(bps) || bps < 0 || bps > MAX_BPS) {
      return { reward: undefined, violations: [{ field: `${field}.bps`, reason: `must be a whole number of basis points from 0 to ${MAX_BPS}` }] };
    }
    return { reward: { bps }, violations: [] };
  }
  const parsed = parseAmount(input.fixed!, `${field}.fixed`);
  if ('violation' in parsed) return { reward: undefined, violations: [parsed.violation] };
  if (parsed.amount < 0n) return { reward: undefined, violations: [{ field: `${field}.fixed`, reason: 'must not be negative' }] };
  return { reward: { fixed: parsed.amount }, violations: [] };
}
