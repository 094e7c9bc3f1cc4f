import type { Clock } from '../../platform/clock';
import type { Logger } from '../../platform/logger';
import { MAX_AMOUNT } from '../../rules/money';
import type { ConversionRepository, PendingConversion } from '../repositories/conversion.repository';
import type { OutboxWaker } from '../../platform/outbox/relay';
import type { ConversionOutcome } from '../repositories/conversion-outcome';
import type { LedgerRepository } from '../repositories/ledger.repository';
import type { PayoutTermsRepository } from '../repositories/payout-terms.repository';
import type { PayoutTermsRecord } from '../repositories/payout-terms.repository';
import type { UserIdentifier } from '../../rules/identifiers';
import type { AllowlistSource, MembershipQuestion } from './allowlists';
import type { AttributionSource } from './attribution';
import { conversionProcessedEvents } from './conversion-events';
import type { KnownCurrencies } from '../repositories/known-currencies';
import { hasCaps } from './caps';
import { allowlistQuestions, type Attribution, type IsMember, planPayouts, type PlannedMovement, type ResolvedAttribution } from './payouts';
import type { AssessedConversion, ReviewService } from './review.service';

/** What a conversion that could not be paid says (the internal reason goes to the log). */
const FAILED_REASON = 'the conversion could not be processed; send it again with the same body to retry';
/** What a conversion says whose payout would be more than any voucher pays. */
const PAST_MAX_REASON =
  'a payout of this conversion would be past 2^256 - 1 base units, more than a voucher can pay, so nothing was paid; correct the payout terms and send it again with the same body';

/**
 * Whether a conversion's movements wait, under its terms: for an admin's approval first (then for
 * the rest of the hold, if any), else for the hold; terms with neither make them available at once.
 */
function waiting(terms: PayoutTermsRecord | null): Pick<ConversionOutcome, 'pendingReason' | 'holdDays'> {
  if (!terms) return { pendingReason: null, holdDays: 0 };
  const pendingReason = terms.requireApproval ? 'approval' : terms.holdDays > 0 ? 'hold' : null;
  return { pendingReason, holdDays: terms.holdDays };
}

/**
 * The affiliate's and its master's movements wait for `review` while the affiliate is flagged, and so does the
 * user's rebate (the affiliate's money); the end user's own reward follows the terms.
 */
function waitForFlag(movement: PlannedMovement): PlannedMovement {
  return movement.kind === 'end_user_payout' && !movement.rebate ? movement : { ...movement, waitsForFlag: true };
}

const memberKey = (audienceId: string, user: UserIdentifier) => `${audienceId}\u0000${user.identifierType}\u0000${user.identifier}`;

/**
 * The job's step, for one stored batch of conversions: attribution from the agency service (after
 * applying referral codes), the payout terms of each conversion's name, when those terms name
 * allowlists the batch's memberships from the audience service (one call), the arithmetic of
 * planPayouts, then one transaction (LedgerRepository.record) that applies the terms' caps and writes everything, the
 * `claim.conversion.processed` events included, or nothing.
 * Idempotent: a conversion already paid by another delivery is skipped, so running a batch twice,
 * or a thousand times at once, pays each conversion once.
 */
export class PayoutService {
  private readonly running = new Map<string, Promise<{ recorded: number; movements: number }>>();

  constructor(
    private readonly conversions: ConversionRepository,
    private readonly terms: PayoutTermsRepository,
    private readonly ledger: LedgerRepository,
    private readonly attribution: AttributionSource,
    /** Told after each commit that wrote events (the service's outbox relay). */
    private readonly outbox: OutboxWaker,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** The currencies the events describe (immutable, so cached). */
    private readonly currencies: KnownCurrencies,
    /** Who is on the terms' allowlists: the audience service, asked only for batches whose terms name one. */
    private readonly allowlists: AllowlistSource,
    /** The project's review rules, asked once per batch (reading only the settings while every rule is off). */
    private readonly review: Pick<ReviewService, 'assess'>,
  ) {}

  /**
   * Pays what the batch still waits for. A second delivery of a batch while this process pays it
   * waits for that run's outcome instead of repeating its work; deliveries in other processes are
   * made harmless by the ledger's transaction (LedgerRepository.record).
   */
  payBatch(batchId: string): Promise<{ recorded: number; movements: number }> {
    const running = this.running.get(batchId);
    if (running) return running;
    const run = this.pay(batchId).finally(() => this.running.delete(batchId));
    this.running.set(batchId, run);
    return run;
  }

  private async pay(batchId: string): Promise<{ recorded: number; movements: number }> {
    const batch = await this.conversions.unfinishedBatch(batchId);
    if (!batch) return { recorded: 0, movements: 0 };
    const { projectId } = batch;
    const pending = await this.conversions.pendingOf(projectId, batchId);
    const outcomes = pending.length === 0 ? [] : await this.plan(projectId, pending);
    const byId = new Map(pending.map((conversion) => [conversion.id, conversion]));
    const currencies = await this.currencies.of(
      projectId,
      outcomes.map((outcome) => outcome.currencyId),
    );
    const points = new Set([...currencies.values()].filter((currency) => currency.type === 'point').map((currency) => currency.id));
    const result = await this.ledger.record(
      projectId,
      batchId,
      outcomes,
      this.clock.now(),
      (recorded) => conversionProcessedEvents(projectId, byId, recorded, currencies),
      points,
    );
    if (result.recorded.length > 0) {
      this.outbox.wake();
      this.logger.info(
        { project_id: projectId, batch_id: batchId, conversions: result.recorded.length, movements: result.movements },
        'conversions paid',
      );
    }
    return { recorded: result.recorded.length, movements: result.movements };
  }

  /** The batch will not be paid: its conversions still waiting show as failed. */
  async failBatch(batchId: string): Promise<void> {
    const failed = await this.conversions.failBatch(batchId, FAILED_REASON, this.clock.now());
    if (failed > 0) this.logger.error({ batch_id: batchId, conversions: failed }, 'conversions marked failed');
  }

  /** Stored batches not finished yet, oldest first: the relay makes sure each has a job. */
  unfinished(limit: number): Promise<string[]> {
    return this.conversions.unfinishedBatches(limit);
  }

  private async plan(projectId: string, pending: PendingConversion[]): Promise<ConversionOutcome[]> {
    const at = pending.map((conversion) => conversion.occurredAt);
    const withCode = pending.flatMap((conversion, index) =>
      conversion.referralCode === null ? [] : [{ index, user: conversion.user, code: conversion.referralCode }],
    );
    if (withCode.length > 0) {
      const since = await this.attribution.applyReferralCodes(
        projectId,
        withCode.map(({ user, code }) => ({ user, code })),
      );
      // A referral the code made just now did not exist when the conversion happened; the
      // conversion that brought the code is still the referrer's, as things stand from then on.
      withCode.forEach(({ index }, position) => {
        const referredAt = since[position];
        if (referredAt && referredAt > at[index]!) at[index] = referredAt;
      });
    }
    const [attributions, termsByName] = await Promise.all([
      this.attribution.resolve(
        projectId,
        pending.map((conversion, index) => ({ user: conversion.user, at: at[index]! })),
      ),
      this.terms.forNames(
        projectId,
        pending.map((conversion) => conversion.name),
      ),
    ]);
    const isMember = await this.memberships(projectId, pending, attributions, termsByName);
    const outcomes = pending.map((conversion, index): ConversionOutcome => {
      const attribution = attributions[index];
      if (attribution === undefined || attribution instanceof Error) {
        this.logger.error({ project_id: projectId, conversion_id: conversion.id, err: attribution }, 'attribution of a conversion failed');
        return failedOutcome(conversion.id, FAILED_REASON);
      }
      const terms = termsByName.get(conversion.name) ?? null;
      const plan = planPayouts(conversion, attribution, terms, isMember);
      if (plan.movements.some((movement) => movement.amount > MAX_AMOUNT)) {
        // Only from what was stored before amounts were bounded (a reward_base or fixed reward past it).
        this.logger.warn(
          { project_id: projectId, conversion_id: conversion.id, conversion_name: conversion.name },
          'a payout of a conversion is past 2^256 - 1: not paid',
        );
        return failedOutcome(conversion.id, PAST_MAX_REASON);
      }
      return {
        id: conversion.id,
        status: plan.status,
        failureReason: null,
        currencyId: plan.currencyId,
        attribution,
        movements: attribution?.affiliateFlagged ? plan.movements.map(waitForFlag) : plan.movements,
        eligibility: plan.eligibility,
        review: null,
        ...waiting(terms),
        caps: terms && hasCaps(terms.caps) ? { termsName: terms.conversionName, caps: terms.caps } : null,
      };
    });
    return this.reviewed(projectId, pending, attributions, outcomes);
  }

  /**
   * The review rules, asked once for the batch (ReviewService.assess): each conversion that pays
   * something is assessed with its referral's moment and its total planned reward; one that breaks a
   * rule waits for `review` (every movement, whatever its terms' approval or hold say: after an
   * approval it waits for the rest of its hold), and enters the queue in the payment's transaction.
   * A conversion that pays nothing is not assessed: nothing of it could wait.
   */
  private async reviewed(
    projectId: string,
    pending: PendingConversion[],
    attributions: Array<ResolvedAttribution | null | Error>,
    outcomes: ConversionOutcome[],
  ): Promise<ConversionOutcome[]> {
    const assessed: AssessedConversion[] = [];
    outcomes.forEach((outcome, index) => {
      if (outcome.status !== 'processed' || outcome.movements.length === 0) return;
      const conversion = pending[index]!;
      const attribution = attributions[index];
      const referredAt = attribution && !(attribution instanceof Error) ? attribution.referredAt : null;
      assessed.push({
        id: conversion.id,
        user: conversion.user,
        occurredAt: conversion.occurredAt,
        // A conversion that brought its user's referral code was referred at its processing: as if at its moment (0 s).
        referredAt: referredAt === null ? null : new Date(Math.min(referredAt.getTime(), conversion.occurredAt.getTime())),
        totalReward: outcome.movements.reduce((sum, movement) => sum + movement.amount, 0n),
      });
    });
    if (assessed.length === 0) return outcomes;
    const broken = await this.review.assess(projectId, assessed);
    if (broken.size === 0) return outcomes;
    return outcomes.map((outcome, index): ConversionOutcome => {
      const rules = broken.get(outcome.id);
      if (!rules) return outcome;
      return { ...outcome, pendingReason: 'review', review: { conversionId: outcome.id, user: pending[index]!.user, rules } };
    });
  }

  /**
   * The batch's allowlist memberships, asked of the audience service in one call: every distinct
   * (audience, user) the plans will ask about. Undefined, and nobody asked, when no terms of the
   * batch name an allowlist (the common case, and the measured path). When the audience service
   * cannot answer this throws, and the job pays the batch later: never without its allowlists.
   */
  private async memberships(
    projectId: string,
    pending: PendingConversion[],
    attributions: Array<Attribution | null | Error>,
    termsByName: Map<string, PayoutTermsRecord>,
  ): Promise<IsMember | undefined> {
    if (![...termsByName.values()].some((terms) => terms.endUserAllowlistAudienceId !== null || terms.affiliateAllowlistAudienceId !== null))
      return undefined;
    const questions = new Map<string, MembershipQuestion>();
    pending.forEach((conversion, index) => {
      const attribution = attributions[index];
      // A conversion whose attribution failed fails: it asks nothing.
      if (attribution === undefined || attribution instanceof Error) return;
      for (const question of allowlistQuestions(conversion, attribution, termsByName.get(conversion.name) ?? null)) {
        questions.set(memberKey(question.audienceId, question.user), question);
      }
    });
    if (questions.size === 0) return undefined;
    const asked = [...questions.values()];
    const { members, missing } = await this.allowlists.members(projectId, asked);
    if (missing.length > 0) {
      this.logger.warn(
        { project_id: projectId, audience_ids: missing },
        'payout terms name allowlist audiences the project no longer has: nobody on those sides earns until the terms name another audience or none',
      );
    }
    const yes = new Set(asked.flatMap((question, position) => (members[position] ? [memberKey(question.audienceId, question.user)] : [])));
    return (audienceId, user) => yes.has(memberKey(audienceId, user));
  }
}

/** A conversion that failed (`failureReason`): nothing paid, nothing attributed. */
function failedOutcome(id: string, failureReason: string): ConversionOutcome {
  return {
    id,
    status: 'failed',
    failureReason,
    currencyId: null,
    attribution: null,
    movements: [],
    eligibility: null,
    pendingReason: null,
    review: null,
    holdDays: 0,
    caps: null,
  };
}
