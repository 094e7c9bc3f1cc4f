import type { ApiBody, ApiQuery, ApiResult } from '../../api/client';
import { formatDecimal } from '../../ui/format';

export type ReviewList = ApiResult<'/api/v1/projects/{projectId}/review', 'get'>;
export type ReviewRow = ReviewList['results'][number];
export type ReviewRule = ReviewRow['rules'][number]['rule'];
type ReviewQuery = NonNullable<ApiQuery<'/api/v1/projects/{projectId}/review', 'get'>>;
export type ReviewStatus = NonNullable<ReviewQuery['status']>;
export type ReviewSettings = ApiResult<'/api/v1/projects/{projectId}/review-settings', 'get'>;
export type ReviewSettingsChanges = ApiBody<'/api/v1/projects/{projectId}/review-settings', 'patch'>;
export type Decision = ApiResult<'/api/v1/projects/{projectId}/movements/approve', 'post'>['results'][number];

export const reviewKeys = {
  all: (projectId: string) => ['review', projectId] as const,
  settings: (projectId: string) => ['review-settings', projectId] as const,
};

/** Each rule's name in a filter and a settings field; a Record over the API's enum, so a rule it adds fails the type check here until named. */
export const RULE_NAMES: Record<ReviewRule, string> = {
  max_conversions_per_user_per_hour: 'Conversions of one user in an hour',
  min_seconds_from_referral_to_conversion: 'Seconds from the referral to the conversion',
  max_reward_per_conversion: 'Reward of one conversion',
};
export const RULES = Object.keys(RULE_NAMES) as ReviewRule[];

const count = (value: string) => formatDecimal(value);

/** A broken rule as a sentence, with its figures (limit and actual are the API's decimal strings, grouped, never parsed). */
export function ruleSentence({ rule, limit, actual }: ReviewRow['rules'][number]): string {
  switch (rule) {
    case 'max_conversions_per_user_per_hour':
      return `Its user's conversion number ${count(actual)} in the hour ending at it; the limit is ${count(limit)} an hour.`;
    case 'min_seconds_from_referral_to_conversion':
      return `It came ${count(actual)} seconds after its user's referral; at least ${count(limit)} seconds are required.`;
    case 'max_reward_per_conversion':
      return `Its planned reward is ${count(actual)} base units, above the limit of ${count(limit)} base units.`;
  }
}

/** What an approval or decline did to one conversion, as a sentence. */
export function outcomeSentence({ conversion_id: id, outcome }: Pick<Decision, 'conversion_id' | 'outcome'>): string {
  switch (outcome) {
    case 'approved':
      return `${id}: approved. Its payouts are available, or wait for the rest of their hold.`;
    case 'declined':
      return `${id}: declined. Its payouts will never be paid.`;
    case 'already_approved':
      return `${id}: was approved before; nothing changed.`;
    case 'already_declined':
      return `${id}: was declined before; nothing changed.`;
    case 'not_pending':
      return `${id}: nothing of it waits for a decision; nothing changed.`;
    case 'not_found':
      return `${id}: there is no such conversion in this project.`;
  }
}

/** One rule's input: whether it is on, and its limit as typed. */
export interface RuleValue {
  on: boolean;
  limit: string;
}
export type RuleValues = Record<ReviewRule, RuleValue>;

export function ruleValues(settings: ReviewSettings): RuleValues {
  const value = (limit: number | string | null): RuleValue => ({ on: limit !== null, limit: limit === null ? '' : String(limit) });
  return {
    max_conversions_per_user_per_hour: value(settings.max_conversions_per_user_per_hour),
    min_seconds_from_referral_to_conversion: value(settings.min_seconds_from_referral_to_conversion),
    max_reward_per_conversion: value(settings.max_reward_per_conversion),
  };
}

/** A limit that is not a whole number, found before anything is sent (the API checks the ranges). */
export function ruleProblems(values: RuleValues): Partial<Record<ReviewRule, string>> {
  const problems: Partial<Record<ReviewRule, string>> = {};
  for (const rule of RULES) if (values[rule].on && !/^\d+$/.test(values[rule].limit.trim())) problems[rule] = 'Enter a whole number.';
  return problems;
}

/** The PATCH body: only the rules changed (off is null); the counts as numbers, the reward as its exact decimal string. */
export function ruleChanges(initial: RuleValues, values: RuleValues): ReviewSettingsChanges {
  const body: ReviewSettingsChanges = {};
  const limit = (rule: ReviewRule) => (values[rule].on ? values[rule].limit.trim() : null);
  const changed = (rule: ReviewRule) => limit(rule) !== (initial[rule].on ? initial[rule].limit.trim() : null);
  if (changed('max_conversions_per_user_per_hour')) {
    const value = limit('max_conversions_per_user_per_hour');
    body.max_conversions_per_user_per_hour = value === null ? null : Number(value);
  }
  if (changed('min_seconds_from_referral_to_conversion')) {
    const value = limit('min_seconds_from_referral_to_conversion');
    body.min_seconds_from_referral_to_conversion = value === null ? null : Number(value);
  }
  if (changed('max_reward_per_conversion')) body.max_reward_per_conversion = limit('max_reward_per_conversion');
  return body;
}
