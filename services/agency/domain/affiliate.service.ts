import type { Clock } from '../../platform/clock';
import { REFERRAL_CODE_RULES, USER_REBATE_RATE_RULES } from '../../rules/contract-limits';
import { AlreadyExistsError, ConflictError, type FieldViolation, NotFoundError } from '../../rules/errors';
import type { Logger } from '../../platform/logger';
import type { OutboxWaker } from '../../platform/outbox/relay';
import type { Page } from '../../rules/pagination';
import { type AffiliateMetricsRecord, EMPTY_METRICS } from '../repositories/affiliate-metrics.repository';
import { type AffiliateFilters, type AffiliateListRecord, type AffiliateSort, DEFAULT_AFFILIATE_SORT } from '../repositories/affiliate-list';
import type { AffiliateCodeStatsRecord, AffiliateRecord } from '../repositories/affiliate-record';
import type { AffiliateRepository } from '../repositories/affiliate.repository';
import { affiliateNotFound, checkCode, checkName, checkReason, checkRegion, throwIfInvalid } from './affiliate-fields';
import { requireProjectId, subject, type UserInput } from '../../rules/subject';
import { checkAudienceFilters } from './audience-filters';
import { checkConversionFilter } from './conversion-filter';
import type { AffiliateStatus } from './vocabulary';

export interface NewAffiliateInput {
  name: string;
  region?: string | null;
  code?: string;
  /** The first code's user rebate rate in basis points (0 to 2,000); only with `code`. */
  codeRebateRateBps?: number | null;
}

export interface AffiliateUpdate {
  /** Which fields to change: "name", "region". */
  mask: readonly string[];
  name?: string;
  region?: string | null;
}

export interface AffiliateListFilters {
  status?: AffiliateStatus;
  region?: string;
  q?: string;
  /** Members of this audience segment. */
  audienceId?: string | undefined;
  /** Members of any of these segments. */
  anyAudienceIds?: readonly string[] | undefined;
  /** With at least one conversion of any of these names. */
  conversionNames?: readonly string[] | undefined;
}

const UPDATABLE = ['name', 'region'] as const;

export function affiliateExists(): AlreadyExistsError {
  return new AlreadyExistsError('AFFILIATE_EXISTS', 'this user is already an affiliate of this project');
}

export function codeInUse(code: string): AlreadyExistsError {
  return new AlreadyExistsError('CODE_IN_USE', `the code ${code} is already used in this project (codes ignore letter case)`, [
    { field: 'code', reason: 'is already used in this project' },
  ]);
}

/**
 * Affiliates of a project (§2.9): created by an admin or by the affiliate itself (self-service,
 * its wallet signature checked by the gateway), their codes, and their status. A suspension opens a
 * period of the history and a reactivation closes it, so "was it suspended at t" stays answerable.
 */
export class AffiliateService {
  constructor(
    private readonly affiliates: AffiliateRepository,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Woken after each commit that wrote an event (created, status changed). */
    private readonly outbox: OutboxWaker,
  ) {}

  /** `actorId`: the admin's API key; null when the affiliate creates itself (self-service). */
  async create(projectIdInput: string, userInput: UserInput, input: NewAffiliateInput, actorId: string | null = null): Promise<AffiliateRecord> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const name = checkName(input.name);
    const region = checkRegion(input.region);
    const code = input.code === undefined ? undefined : checkCode(input.code);
    const rebate = { violations: rebateRateViolations(input.codeRebateRateBps ?? null, 'user_rebate_rate_bps') };
    if (code === undefined && input.codeRebateRateBps !== undefined && input.codeRebateRateBps !== null) {
      rebate.violations.push({ field: 'user_rebate_rate_bps', reason: 'needs a code: the rate is the code’s' });
    }
    throwIfInvalid(name, region, rebate, ...(code ? [code] : []));
    const outcome = await this.affiliates.insert({
      projectId,
      user,
      name: name.value,
      region: region.value,
      code: code?.value ?? null,
      codeRebateRateBps: input.codeRebateRateBps ?? null,
      source: actorId === null ? 'self_service' : 'admin',
      now: this.clock.now(),
    });
    if (outcome === 'affiliate_exists') throw affiliateExists();
    if (outcome === 'code_taken') throw codeInUse(code!.value);
    this.outbox.wake();
    this.logger.info({ project_id: projectId, affiliate_id: outcome.id }, 'affiliate created');
    return outcome;
  }

  async get(projectIdInput: string, userInput: UserInput): Promise<AffiliateRecord> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const affiliate = await this.affiliates.findByUser(projectId, user);
    if (!affiliate) throw affiliateNotFound();
    return affiliate;
  }

  async update(projectIdInput: string, userInput: UserInput, update: AffiliateUpdate): Promise<AffiliateRecord> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const unknown = update.mask.filter((field) => !(UPDATABLE as readonly string[]).includes(field));
    const changesName = update.mask.includes('name');
    const changesRegion = update.mask.includes('region');
    const name = changesName ? checkName(update.name) : undefined;
    const region = changesRegion ? checkRegion(update.region) : undefined;
    throwIfInvalid(
      { violations: unknown.map((field) => ({ field: 'update_mask', reason: `${field} cannot be changed; only ${UPDATABLE.join(', ')}` })) },
      ...(name ? [name] : []),
      ...(region ? [region] : []),
    );
    const updated = await this.affiliates.update(projectId, user, { name: name?.value, region: region?.value, now: this.clock.now() });
    if (!updated) throw affiliateNotFound();
    return updated;
  }

  /** A page of the project's affiliates, filtered, in the order asked (newest first by default), each with its figures, master relation and protection. */
  async list(
    projectIdInput: string,
    filters: AffiliateListFilters,
    page: Page,
    sort: AffiliateSort = DEFAULT_AFFILIATE_SORT,
  ): Promise<{ records: AffiliateListRecord[]; total: number }> {
    const projectId = requireProjectId(projectIdInput);
    const region = filters.region === undefined ? undefined : checkRegion(filters.region);
    throwIfInvalid(...(region ? [region] : []));
    const q = filters.q?.trim();
    const repositoryFilters: AffiliateFilters = {
      status: filters.status,
      region: region?.value ?? undefined,
      q: q === undefined || q === '' ? undefined : q,
      ...checkAudienceFilters(filters.audienceId, filters.anyAudienceIds),
      ...checkConversionFilter(filters.conversionNames),
    };
    return this.affiliates.list(projectId, repositoryFilters, page, sort, this.clock.now());
  }

  /** The figures and earnings of these affiliates of the project (metrics projection); those without any read as zeros. */
  async metricsOf(projectIdInput: string, ids: readonly string[]): Promise<Map<string, AffiliateMetricsRecord>> {
    const projectId = requireProjectId(projectIdInput);
    const found = await this.affiliates.metricsOf(projectId, ids);
    return new Map(ids.map((id) => [id, found.get(id) ?? EMPTY_METRICS]));
  }

  async suspend(projectIdInput: string, userInput: UserInput, reasonInput: string, actorId: string | null): Promise<AffiliateRecord> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const reason = checkReason(reasonInput);
    throwIfInvalid(reason);
    const outcome = await this.affiliates.suspend(projectId, user, reason.value, actorId, this.clock.now());
    if (outcome === 'no_affiliate') throw affiliateNotFound();
    if (outcome === 'unchanged') throw new ConflictError('AFFILIATE_ALREADY_SUSPENDED', 'this affiliate is already suspended');
    this.outbox.wake();
    this.logger.info({ project_id: projectId, actor_api_key_id: actorId }, 'affiliate suspended');
    return this.get(projectId, user);
  }

  async reactivate(projectIdInput: string, userInput: UserInput, actorId: string | null): Promise<AffiliateRecord> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const outcome = await this.affiliates.reactivate(projectId, user, actorId, this.clock.now());
    if (outcome === 'no_affiliate') throw affiliateNotFound();
    if (outcome === 'unchanged') throw new ConflictError('AFFILIATE_NOT_SUSPENDED', 'this affiliate is not suspended');
    this.outbox.wake();
    this.logger.info({ project_id: projectId, actor_api_key_id: actorId }, 'affiliate reactivated');
    return this.get(projectId, user);
  }

  /**
   * active -> flagged (docs/affiliates.md#flagged-affiliates). Idempotent: a flagged affiliate is
   * answered as it is, its first flag's reason and time kept (an admin who wants another reason
   * unflags first). A suspended affiliate cannot be flagged: it earns nothing, so there is nothing to review.
   */
  async flag(projectIdInput: string, userInput: UserInput, reasonInput: string, actorId: string | null): Promise<AffiliateRecord> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const reason = checkReason(reasonInput);
    throwIfInvalid(reason);
    const outcome = await this.affiliates.flag(projectId, user, reason.value, actorId, this.clock.now());
    if (outcome === 'no_affiliate') throw affiliateNotFound();
    const affiliate = await this.get(projectId, user);
    if (outcome === 'unchanged') {
      if (affiliate.status === 'suspended')
        throw new ConflictError('AFFILIATE_SUSPENDED', 'this affiliate is suspended: reactivate it before flagging it');
      return affiliate;
    }
    this.outbox.wake();
    this.logger.info({ project_id: projectId, actor_api_key_id: actorId }, 'affiliate flagged');
    return affiliate;
  }

  /** flagged -> active. Idempotent: an affiliate that is not flagged (active, or suspended) is answered as it is. */
  async unflag(projectIdInput: string, userInput: UserInput, actorId: string | null): Promise<AffiliateRecord> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const outcome = await this.affiliates.unflag(projectId, user, actorId, this.clock.now());
    if (outcome === 'no_affiliate') throw affiliateNotFound();
    if (outcome === 'changed') {
      this.outbox.wake();
      this.logger.info({ project_id: projectId, actor_api_key_id: actorId }, 'affiliate unflagged');
    }
    return this.get(projectId, user);
  }

  /** A code for an existing affiliate (admin or the affiliate's own portal). */
  async addCode(projectIdInput: string, userInput: UserInput, codeInput: string): Promise<AffiliateRecord> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const code = checkCode(codeInput);
    throwIfInvalid(code);
    const outcome = await this.affiliates.addCode(projectId, user, code.value, REFERRAL_CODE_RULES.maxPerAffiliate, this.clock.now());
    if (outcome === 'no_affiliate') throw affiliateNotFound();
    if (outcome === 'code_taken') throw codeInUse(code.value);
    if (outcome === 'limit_reached') {
      throw new ConflictError('CODE_LIMIT_REACHED', `an affiliate may hold at most ${REFERRAL_CODE_RULES.maxPerAffiliate} codes`);
    }
    return this.get(projectId, user);
  }

  /**
   * The affiliate changes its code (self-service, its signature checked by the gateway): the new code
   * becomes its newest, with the rebate rate its newest code had; its older codes keep referring and
   * their referrals keep them. A code it already holds answers it unchanged (a retry is harmless).
   */
  async updateCode(projectIdInput: string, userInput: UserInput, codeInput: string): Promise<AffiliateRecord> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const code = checkCode(codeInput);
    throwIfInvalid(code);
    const outcome = await this.affiliates.updateCode(projectId, user, code.value, REFERRAL_CODE_RULES.maxPerAffiliate, this.clock.now());
    if (outcome === 'no_affiliate') throw affiliateNotFound();
    if (outcome === 'code_taken') throw codeInUse(code.value);
    if (outcome === 'limit_reached') {
      throw new ConflictError('CODE_LIMIT_REACHED', `an affiliate may hold at most ${REFERRAL_CODE_RULES.maxPerAffiliate} codes`);
    }
    return this.get(projectId, user);
  }

  /** Sets (null: clears) the user rebate rate of one of the affiliate's codes (any letter case). */
  async setRebateRate(projectIdInput: string, userInput: UserInput, codeInput: string, bps: number | null): Promise<AffiliateRecord> {
    const { projectId, user } = subject(projectIdInput, userInput);
    throwIfInvalid({ violations: rebateRateViolations(bps, 'user_rebate_rate_bps') });
    const outcome = await this.affiliates.setRebateRate(projectId, user, codeInput, bps, this.clock.now());
    if (outcome === 'no_affiliate') throw affiliateNotFound();
    if (outcome === 'no_code') throw new NotFoundError('CODE_NOT_FOUND', `the affiliate holds no code ${codeInput}`);
    this.logger.info({ project_id: projectId, user_rebate_rate_bps: bps }, 'code rebate rate set');
    return this.get(projectId, user);
  }

  /** What each of the affiliate's codes brought (clicks, earnings), by code as registered. */
  async codeStats(projectIdInput: string, affiliateId: string): Promise<Map<string, AffiliateCodeStatsRecord>> {
    return this.affiliates.codeStats(requireProjectId(projectIdInput), affiliateId);
  }

  /** free: nobody in the project holds it (any case); available: free and a valid code, so registering it would succeed. */
  async checkCode(projectIdInput: string, codeInput: string): Promise<{ free: boolean; available: boolean }> {
    const projectId = requireProjectId(projectIdInput);
    const valid = checkCode(codeInput).violations.length === 0;
    // An invalid code can be held by nobody: no need to ask.
    const free = !valid || !(await this.affiliates.codeTaken(projectId, codeInput));
    return { free, available: free && valid };
  }
}

/** A user rebate rate in basis points: a whole number from 0 to 2,000 (null: none). */
function rebateRateViolations(bps: number | null, field: string): FieldViolation[] {
  if (bps === null || (Number.isInteger(bps) && bps >= 0 && bps <= USER_REBATE_RATE_RULES.maxBps)) return [];
  return [{ field, reason: `must be a whole number of basis points from 0 to ${USER_REBATE_RATE_RULES.maxBps}` }];
}
