import type { ApiBody, ApiResult } from '../../api/client';
import { formatDecimal, formatTokenAmount, tokenAmount, UNKNOWN_CURRENCY } from '../../ui/format';

/**
 * Rewards as the terms editor handles them. A fixed reward is typed in whole tokens of the terms'
 * currency ("1.5" USDC) and sent as base units ("1500000"): the conversion is string arithmetic on
 * the digits, never a float, so every amount the currency can hold is exact.
 */
export type Reward = NonNullable<ApiBody<'/api/v1/projects/{projectId}/payout-terms/{conversionName}', 'put'>['affiliate']>;
export type PayoutTerms = ApiResult<'/api/v1/projects/{projectId}/payout-terms/{conversionName}', 'get'>;

export type RewardKind = 'none' | 'fixed' | 'bps';

/** A reward while it is typed: the text of each kind is kept, so switching kinds loses nothing. */
export interface RewardDraft {
  kind: RewardKind;
  /** Whole tokens, e.g. "1.5". */
  amount: string;
  /** Basis points, 0 to 10,000. */
  bps: string;
}

export const NO_REWARD: RewardDraft = { kind: 'none', amount: '', bps: '' };

/** "1.5" with 6 decimals -> "1500000"; an error in plain words for anything that is not such an amount. */
export function parseTokenAmount(text: string, decimals: number): { baseUnits: string } | { error: string } {
  const match = /^(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!match || (match[1] === '' && (match[2] ?? '') === '')) return { error: 'Enter an amount such as 1.5 (digits, one decimal point).' };
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) {
    return { error: decimals === 0 ? 'This currency has no decimals: enter a whole number.' : `At most ${decimals} digits after the decimal point.` };
  }
  const digits = `${match[1]}${fraction.padEnd(decimals, '0')}`.replace(/^0+(?=\d)/, '');
  return { baseUnits: digits === '' ? '0' : digits };
}

/** The draft of a stored reward: its base units back in whole tokens of the currency. */
export function draftOf(reward: Reward | null, decimals: number): RewardDraft {
  if (reward === null) return NO_REWARD;
  return 'fixed' in reward
    ? { kind: 'fixed', amount: tokenAmount(reward.fixed, decimals), bps: '' }
    : { kind: 'bps', amount: '', bps: String(reward.bps) };
}

/** The reward to send, or why the draft is not one. */
export function rewardOf(draft: RewardDraft, decimals: number): { reward: Reward | null } | { error: string } {
  if (draft.kind === 'none') return { reward: null };
  if (draft.kind === 'fixed') {
    const parsed = parseTokenAmount(draft.amount, decimals);
    return 'error' in parsed ? parsed : { reward: { fixed: parsed.baseUnits } };
  }
  const bps = draft.bps.trim();
  if (!/^\d{1,5}$/.test(bps) || Number(bps) > 10_000) return { error: 'Enter whole basis points from 0 to 10,000 (100 bps = 1 %).' };
  return { reward: { bps: Number(bps) } };
}

/** "1.5 USDC each" or "2.5 % of reward_base (250 bps)", for lists. */
export function describeReward(reward: Reward | null, currency: { decimals: number; name: string } | undefined): string {
  if (reward === null) return 'Nothing';
  if ('bps' in reward) return `${formatDecimal(String(reward.bps / 100))} % of reward_base (${reward.bps} bps)`;
  return `${formatTokenAmount(reward.fixed, currency ?? UNKNOWN_CURRENCY)} each`;
}

/** The referral levels above the referring affiliate that terms (and each tier) may pay (docs/claims.md#referral-levels). */
export const UPPER_LEVELS = [2, 3, 4] as const;
export type UpperLevel = (typeof UPPER_LEVELS)[number];
export type LevelField = `affiliate${UpperLevel}`;
export const levelField = (level: UpperLevel): LevelField => `affiliate${level}`;

/** Terms or a tier as far as their upper levels go: absent and null both pay nothing. */
export type LevelRewards = Partial<Record<LevelField, Reward | null>>;
export type LevelDrafts = Record<UpperLevel, RewardDraft>;

/** The drafts of levels 2..4 of stored terms or a tier (nothing for new ones). */
export function levelDraftsOf(source: LevelRewards | undefined, decimals: number): LevelDrafts {
  const draft = (level: UpperLevel) => draftOf(source?.[levelField(level)] ?? null, decimals);
  return { 2: draft(2), 3: draft(3), 4: draft(4) };
}

/** "level 2: 1 % of reward_base (100 bps); level 4: 0.5 USDC each", the levels that pay; "" when none does. */
export function describeLevels(source: LevelRewards, currency: { decimals: number; name: string } | undefined): string {
  return UPPER_LEVELS.flatMap((level) => {
    const reward = source[levelField(level)] ?? null;
    return reward === null ? [] : [`level ${level}: ${describeReward(reward, currency)}`];
  }).join('; ');
}
