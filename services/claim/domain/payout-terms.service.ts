import type { Clock } from '../../platform/clock';
import { type FieldViolation, InvalidArgumentError, NotFoundError, refuseFields } from '../../rules/errors';
import { isCanonicalUuid } from '../../rules/ids';
import type { Logger } from '../../platform/logger';
import { AMOUNT_RANGE, parseAmount } from '../../rules/money';
import type { Page } from '../../rules/pagination';
import { type PayoutTermsRecord, type PayoutTermsRepository, type TierRewardRecord, UnknownCurrency } from '../repositories/payout-terms.repository';
import type { AllowlistSource } from './allowlists';
import type { PayoutCaps } from './caps';
import { checkConversionName } from './conversion-name';
import { requireProjectId } from './project';
import { UPLINE_LEVELS, type UplineRewards } from './payouts';
import { checkReward, type Reward, type RewardInput } from './reward';

/** Tiers one set of terms may name. */
export const MAX_TIERS = 100;

/** The rewards of referral levels 2..4 as a request carries them (docs/claims.md#referral-levels); unset: not paid. */
export interface UplineRewardsInput {
  affiliate2?: RewardInput | undefined;
  affiliate3?: RewardInput | undefined;
  affiliate4?: RewardInput | undefined;
}

export interface PayoutTermsInput extends UplineRewardsInput {
  currencyId: string;
  endUser: RewardInput | undefined;
  affiliate: RewardInput | undefined;
  tiers: Array<{ audienceId: string; affiliate: RewardInput | undefined } & UplineRewardsInput>;
  /** An audience of the project whose members alone earn the end user's reward; unset: none. */
  endUserAllowlistAudienceId?: string | undefined;
  /** An audience of the project whose members alone earn the affiliate's reward (and their masters the spread); unset: none. */
  affiliateAllowlistAudienceId?: string | undefined;
  /** Days each movement is held (pending) before it is available, 0..MAX_HOLD_DAYS; unset: 0. */
  holdDays?: number | undefined;
  /** Movements wait (pending) for an admin's approval; unset: false. */
  requireApproval?: boolean | undefined;
  /** What the terms pay at most; unset (or each cap unset): no cap. */
  caps?: PayoutCapsInput | undefined;
}

/** Caps as a request carries them: amounts as decimal strings of base units. */
export interface PayoutCapsInput {
  perConversion?: string | undefined;
  perEndUser?: string | undefined;
  perAffiliateWindow?: { amount: string; days: number } | undefined;
}

/** The longest hold payout terms may set. */
const MAX_HOLD_DAYS = 365;
/** The longest window an affiliate's cap may look back over. */
const MAX_WINDOW_DAYS = 365;

const ALLOWLIST_FIELDS = {
  endUserAllowlistAudienceId: 'end_user_allowlist_audience_id',
  affiliateAllowlistAudienceId: 'affiliate_allowlist_audience_id',
} as const;

const termsNotFound = () => new NotFoundError('PAYOUT_TERMS_NOT_FOUND', 'no payout terms for this conversion name');

/**
 * What a conversion pays, per conversion name: the currency, the end user's reward, the
 * affiliate's reward, the affiliate's reward per active tier, and per side an optional allowlist
 * audience whose members alone earn that side's reward. Terms apply to conversions paid after they
 * change; conversions already paid keep their movements.
 *
 * An allowlist must name an audience of the project when the terms are saved (the audience service
 * is asked). An audience deleted later stays named by the terms and has no members: nobody earns
 * that side's reward until the terms name another audience or none (an allowlist fails closed).
 */
export class PayoutTermsService {
  constructor(
    private readonly terms: PayoutTermsRepository,
    private readonly allowlists: AllowlistSource,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async put(projectId: string, conversionName: string, input: PayoutTermsInput): Promise<{ record: PayoutTermsRecord; created: boolean }> {
    requireProjectId(projectId);
    const violations: FieldViolation[] = [];
    const name = checkConversionName(conversionName, 'conversion_name');
    violations.push(...name.violations);
    if (!isCanonicalUuid(input.currencyId)) violations.push({ field: 'currency_id', reason: 'must be the id of a currency of the project' });
    const endUser = optionalReward(input.endUser, 'end_user', violations);
    const affiliate = optionalReward(input.affiliate, 'affiliate', violations);
    const upline = checkUpline(input, '', violations);
    const tiers = checkTiers(input.tiers, violations);
    const endUserAllowlist = optionalAudience(input.endUserAllowlistAudienceId, ALLOWLIST_FIELDS.endUserAllowlistAudienceId, violations);
    const affiliateAllowlist = optionalAudience(input.affiliateAllowlistAudienceId, ALLOWLIST_FIELDS.affiliateAllowlistAudienceId, violations);
    const holdDays = input.holdDays ?? 0;
    if (!Number.isInteger(holdDays) || holdDays < 0 || holdDays > MAX_HOLD_DAYS) {
      violations.push({ field: 'hold_days', reason: `must be a whole number of days from 0 to ${MAX_HOLD_DAYS}` });
    }
    const caps = checkCaps(input.caps, violations);
    if (violations.length > 0) throw refuseFields(violations, [AMOUNT_RANGE]);
    await this.requireAudiences(projectId, { endUserAllowlistAudienceId: endUserAllowlist, affiliateAllowlistAudienceId: affiliateAllowlist });
    try {
      const result = await this.terms.put({
        projectId,
        conversionName: name.value,
        currencyId: input.currencyId,
        endUser,
        affiliate,
        upline,
        tiers,
        endUserAllowlistAudienceId: endUserAllowlist,
        affiliateAllowlistAudienceId: affiliateAllowlist,
        holdDays,
        requireApproval: input.requireApproval ?? false,
        caps,
        now: this.clock.now(),
      });
      this.logger.info({ project_id: projectId, conversion_name: name.value, created: result.created }, 'payout terms saved');
      return result;
    } catch (error) {
      if (error instanceof UnknownCurrency) {
        throw new InvalidArgumentError('CURRENCY_NOT_FOUND', 'currency_id names no currency of this project', [
          { field: 'currency_id', reason: 'names no currency of this project' },
        ]);
      }
      throw error;
    }
  }

  /** Each allowlist named must be an audience of the project: the audience service says (a foreign id is unknown there too). */
  private async requireAudiences(projectId: string, named: Record<keyof typeof ALLOWLIST_FIELDS, string | null>): Promise<void> {
    const ids = [...new Set(Object.values(named).filter((id): id is string => id !== null))];
    if (ids.length === 0) return;
    const missing = new Set(await this.allowlists.missing(projectId, ids));
    const violations = (Object.keys(ALLOWLIST_FIELDS) as Array<keyof typeof ALLOWLIST_FIELDS>).flatMap((key) =>
      named[key] !== null && missing.has(named[key]) ? [{ field: ALLOWLIST_FIELDS[key], reason: 'names no audience of this project' }] : [],
    );
    if (violations.length > 0) {
      throw new InvalidArgumentError('AUDIENCE_NOT_FOUND', `${violations[0]!.field} names no audience of this project`, violations);
    }
  }

  async get(projectId: string, conversionName: string): Promise<PayoutTermsRecord> {
    const record = await this.terms.get(requireProjectId(projectId), conversionName);
    if (!record) throw termsNotFound();
    return record;
  }

  list(projectId: string, page: Page): Promise<{ records: PayoutTermsRecord[]; total: number }> {
    return this.terms.list(requireProjectId(projectId), page);
  }

  async delete(projectId: string, conversionName: string): Promise<void> {
    if (!(await this.terms.delete(requireProjectId(projectId), conversionName))) throw termsNotFound();
    this.logger.info({ project_id: projectId, conversion_name: conversionName }, 'payout terms deleted');
  }
}

/** Caps checked: each amount positive base units (at most 2^256 − 1), the window's days 1..MAX_WINDOW_DAYS. */
function checkCaps(input: PayoutCapsInput | undefined, violations: FieldViolation[]): PayoutCaps {
  const amount = (value: string | undefined, field: string): bigint | null => {
    if (value === undefined) return null;
    const parsed = parseAmount(value, field);
    if ('violation' in parsed) violations.push(parsed.violation);
    else if (parsed.amount <= 0n) violations.push({ field, reason: 'must be a positive number of base units (omit the cap for none)' });
    else return parsed.amount;
    return null;
  };
  const perConversion = amount(input?.perConversion, 'caps.per_conversion');
  const perEndUser = amount(input?.perEndUser, 'caps.per_end_user');
  const window = input?.perAffiliateWindow;
  if (window === undefined) return { perConversion, perEndUser, perAffiliateWindow: null };
  const windowAmount = amount(window.amount, 'caps.per_affiliate_window.amount');
  const { days } = window;
  const daysValid = Number.isInteger(days) && days >= 1 && days <= MAX_WINDOW_DAYS;
  if (!daysValid) violations.push({ field: 'caps.per_affiliate_window.days', reason: `must be a whole number of days from 1 to ${MAX_WINDOW_DAYS}` });
  return { perConversion, perEndUser, perAffiliateWindow: windowAmount !== null && daysValid ? { amount: windowAmount, days } : null };
}

/** The rewards of levels 2..4 checked, each under `<prefix>affiliate<level>`. */
function checkUpline(input: UplineRewardsInput, prefix: string, violations: FieldViolation[]): UplineRewards {
  const upline: UplineRewards = {};
  for (const level of UPLINE_LEVELS) {
    const reward = optionalReward(input[`affiliate${level}`], `${prefix}affiliate${level}`, violations);
    if (reward) upline[level] = reward;
  }
  return upline;
}

function optionalReward(input: RewardInput | undefined, field: string, violations: FieldViolation[]): Reward | null {
  if (input === undefined) return null;
  const checked = checkReward(input, field);
  violations.push(...checked.violations);
  return checked.reward ?? null;
}

/** An allowlist audience id as sent: unset is none; anything else must be a UUID (canonical: the gateway makes it so). */
function optionalAudience(input: string | undefined, field: string, violations: FieldViolation[]): string | null {
  if (input === undefined) return null;
  if (!isCanonicalUuid(input)) {
    violations.push({ field, reason: 'must be the id of an audience of the project (a UUID), or null' });
    return null;
  }
  return input;
}

function checkTiers(input: PayoutTermsInput['tiers'], violations: FieldViolation[]): TierRewardRecord[] {
  if (input.length > MAX_TIERS) {
    violations.push({ field: 'tiers', reason: `holds ${input.length} tiers; at most ${MAX_TIERS}` });
    return [];
  }
  const seen = new Set<string>();
  const tiers: TierRewardRecord[] = [];
  input.forEach((tier, index) => {
    const path = `tiers[${index}]`;
    if (!isCanonicalUuid(tier.audienceId)) violations.push({ field: `${path}.audience_id`, reason: 'must be the id of an audience (a UUID)' });
    else if (seen.has(tier.audienceId)) violations.push({ field: `${path}.audience_id`, reason: 'names an audience an earlier tier names' });
    seen.add(tier.audienceId);
    if (tier.affiliate === undefined) {
      violations.push({ field: `${path}.affiliate`, reason: 'is required: the affiliate’s reward in this tier' });
      return;
    }
    const checked = checkReward(tier.affiliate, `${path}.affiliate`);
    violations.push(...checked.violations);
    const upline = checkUpline(tier, `${path}.`, violations);
    if (checked.reward) tiers.push({ audienceId: tier.audienceId, affiliate: checked.reward, upline });
  });
  return tiers;
}
