import type { Clock } from '../../platform/clock';
import { type FieldViolation, refuseFields } from '../../rules/errors';
import { normalizeIdentifier } from '../../rules/identifiers';
import { AMOUNT_RANGE, parseAmount } from '../../rules/money';
import type { Page } from '../../rules/pagination';
import type { ConversionReviewRecord, ConversionReviewRepository } from '../repositories/conversion-review.repository';
import type { ReviewFactsRepository, ReviewedConversion } from '../repositories/review-facts.repository';
import type { ReviewSettingsChange, ReviewSettingsRecord, ReviewSettingsRepository } from '../repositories/review-settings.repository';
import { requireProjectId } from './project';
import { anyReviewRule, type BrokenRule, brokenReviewRules, REVIEW_LIMITS, secondsFromReferral } from './review-rules';
import type { ReviewRule, ReviewStatus } from './vocabulary';

/** A change as the API sends it: a field absent is left as it is, null turns its rule off. */
export interface ReviewSettingsInput {
  max_conversions_per_user_per_hour?: number | null;
  min_seconds_from_referral_to_conversion?: number | null;
  /** Base units, a decimal string. */
  max_reward_per_conversion?: string | null;
}

/** One conversion of a batch as the payment path assesses it: its own facts, its attribution's referral moment, its planned reward. */
export interface AssessedConversion extends ReviewedConversion {
  /** When its user was referred (the attribution's referred_at); null when nobody was. */
  referredAt: Date | null;
  /** The sum of its planned movements in its currency's base units; null when it pays nothing. */
  totalReward: bigint | null;
}

export interface ConversionReviewFilterInput {
  rule?: ReviewRule;
  status?: ReviewStatus;
  user?: { identifier: string; identifierType: string };
}

const SETTING_FIELDS: ReadonlySet<string> = new Set<keyof ReviewSettingsInput>([
  'max_conversions_per_user_per_hour',
  'min_seconds_from_referral_to_conversion',
  'max_reward_per_conversion',
]);

/**
 * The project's review rules and the conversions they flagged (docs/claims.md#review-rules). The
 * settings are read by the payment path, which flags conversions (ConversionReviewRepository.flag);
 * admins read the queue here.
 */
export class ReviewService {
  constructor(
    private readonly settings: ReviewSettingsRepository,
    private readonly reviews: ConversionReviewRepository,
    private readonly facts: ReviewFactsRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * The payment path's question for a batch (PayoutService, once per batch): the rules each conversion
   * breaks, by conversion id (absent: none). Reads the project's settings, and the conversions per user per
   * hour in one query, only when a rule is on; nothing is written (the payment's transaction flags them,
   * flagConversions in LedgerRepository.record).
   */
  async assess(projectId: string, conversions: readonly AssessedConversion[]): Promise<Map<string, BrokenRule[]>> {
    const settings = await this.settings.get(requireProjectId(projectId));
    const broken = new Map<string, BrokenRule[]>();
    if (!anyReviewRule(settings) || conversions.length === 0) return broken;
    const others =
      settings.maxConversionsPerUserPerHour === null ? conversions.map(() => 0) : await this.facts.otherConversionsInHour(projectId, conversions);
    conversions.forEach((conversion, index) => {
      const rules = brokenReviewRules(settings, {
        otherConversionsInHour: others[index]!,
        secondsFromReferral: conversion.referredAt === null ? null : secondsFromReferral(conversion.referredAt, conversion.occurredAt),
        totalReward: conversion.totalReward,
      });
      if (rules.length > 0) broken.set(conversion.id, rules);
    });
    return broken;
  }

  /** Every rule off (nulls, updated_at null) until the project first changes them. */
  async getSettings(projectId: string): Promise<ReviewSettingsRecord> {
    return this.settings.get(requireProjectId(projectId));
  }

  /** Checks every field given, refusing them all at once (nothing changes), then applies them in one statement. */
  async updateSettings(projectId: string, input: ReviewSettingsInput): Promise<ReviewSettingsRecord> {
    requireProjectId(projectId);
    const violations: FieldViolation[] = [];
    for (const field of Object.keys(input)) {
      if (!SETTING_FIELDS.has(field)) violations.push({ field, reason: 'is not a review setting' });
    }
    const change: ReviewSettingsChange = {};
    const count = wholeNumber(input, 'max_conversions_per_user_per_hour', REVIEW_LIMITS.maxConversionsPerUserPerHour, violations);
    if (count !== undefined) change.maxConversionsPerUserPerHour = count;
    const seconds = wholeNumber(input, 'min_seconds_from_referral_to_conversion', REVIEW_LIMITS.minSecondsFromReferralToConversion, violations);
    if (seconds !== undefined) change.minSecondsFromReferralToConversion = seconds;
    const reward = input.max_reward_per_conversion;
    if (reward === null) change.maxRewardPerConversion = null;
    else if (reward !== undefined) {
      const parsed = parseAmount(reward, 'max_reward_per_conversion');
      if ('violation' in parsed) violations.push(parsed.violation);
      else if (parsed.amount < 0n) violations.push({ field: 'max_reward_per_conversion', reason: 'must not be negative' });
      else change.maxRewardPerConversion = parsed.amount;
    }
    // A reward past 2^256 − 1 alone answers AMOUNT_OUT_OF_RANGE, as every amount of the API does.
    if (violations.length > 0) throw refuseFields(violations, [AMOUNT_RANGE]);
    return this.settings.update(projectId, change, this.clock.now());
  }

  /** The flagged conversions, newest flagged first. */
  async list(projectId: string, filters: ConversionReviewFilterInput, page: Page): Promise<{ records: ConversionReviewRecord[]; total: number }> {
    requireProjectId(projectId);
    const user = filters.user && normalizeIdentifier(filters.user.identifier, filters.user.identifierType, 'user');
    return this.reviews.list(projectId, { rule: filters.rule, status: filters.status, user }, page);
  }
}

/** An integer setting: undefined when absent, null to turn it off, or its value within its limits (else a violation). */
function wholeNumber(
  input: ReviewSettingsInput,
  field: 'max_conversions_per_user_per_hour' | 'min_seconds_from_referral_to_conversion',
  limits: { min: number; max: number },
  violations: FieldViolation[],
): number | null | undefined {
  const value = input[field];
  if (value === undefined || value === null) return value;
  if (!Number.isInteger(value) || value < limits.min || value > limits.max) {
    violations.push({
      field,
      reason: `must be a whole number from ${limits.min.toLocaleString('en-US')} to ${limits.max.toLocaleString('en-US')}, or null to turn the rule off`,
    });
    return undefined;
  }
  return value;
}
