import type { Clock } from '../../platform/clock';
import { APPLICATION_LIMITS, REFERRAL_CODE_RULES } from '../../rules/contract-limits';
import {
  AlreadyExistsError,
  ConflictError,
  DomainError,
  InvalidArgumentError,
  invalidFields,
  NotFoundError,
  ResourceExhaustedError,
} from '../../rules/errors';
import { isUuid } from '../../rules/ids';
import type { Logger } from '../../platform/logger';
import type { Page } from '../../rules/pagination';
import { checkText } from '../../rules/text-fields';
import type { AffiliateRecord } from '../repositories/affiliate-record';
import type { AffiliateRepository } from '../repositories/affiliate.repository';
import type { OutboxWaker } from '../../platform/outbox/relay';
import type { ApplicationRecord, ApplicationRepository, TransitionOutcome } from '../repositories/application.repository';
import { checkCode, checkName, checkReason, checkRegion, throwIfInvalid } from './affiliate-fields';
import { requireProjectId, subject, type UserInput } from '../../rules/subject';
import type { AudienceDirectory } from './audience-directory';
import type { ApplicationAction, ApplicationStatus } from './vocabulary';

export interface ApplicationInput {
  name: string;
  region?: string | null;
  message?: string | null;
  code?: string | null;
}

/** An admin's decision, as a request carries it (the fields its action does not use are ignored). */
export interface DecisionInput {
  action: ApplicationAction;
  audienceId?: string | undefined;
  reason?: string | undefined;
  note?: string | undefined;
}

/** A decision whose fields are checked (and, for an approval, whose segment is a static one of the project). */
type Decision = { action: 'approve'; audienceId: string } | { action: 'reject'; reason: string } | { action: 'hold'; note: string | null };

export type DecisionResult = { applicationId: string; application: ApplicationRecord } | { applicationId: string; error: DomainError };

/**
 * The state machine (specification §3.2; its transitions are this platform's): pending may be
 * approved, rejected or put on hold; on hold may be approved or rejected; approved and rejected are
 * final. Each transition is checked again under the application's row lock.
 */
export const APPLICATION_TRANSITIONS: Record<ApplicationAction, readonly ApplicationStatus[]> = {
  approve: ['pending', 'on_hold'],
  reject: ['pending', 'on_hold'],
  hold: ['pending'],
};

export function applicationNotFound(): NotFoundError {
  return new NotFoundError('APPLICATION_NOT_FOUND', 'no application of this project has this id');
}

/**
 * Affiliate applications (specification §2.10, §3.2). A user applies from the portal; an admin
 * approves (the user becomes an active affiliate and joins a static segment), rejects (with a
 * reason; the user may apply again) or holds. Approving commits the application, the affiliate and
 * the outbox event that adds the user to the segment in one transaction: the audience service
 * applies the event at least once and idempotently, so no crash or outage between the two
 * services leaves an approved application without its entry.
 */
export class ApplicationService {
  constructor(
    private readonly applications: ApplicationRepository,
    private readonly affiliates: AffiliateRepository,
    private readonly audience: AudienceDirectory,
    private readonly outbox: OutboxWaker,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async submit(projectIdInput: string, userInput: UserInput, input: ApplicationInput): Promise<ApplicationRecord> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const name = checkName(input.name);
    const region = checkRegion(input.region);
    const message =
      input.message === undefined || input.message === null ? undefined : checkText(input.message, 'message', APPLICATION_LIMITS.messageLength);
    const code = input.code === undefined || input.code === null ? undefined : checkCode(input.code);
    throwIfInvalid(name, region, ...(message ? [message] : []), ...(code ? [code] : []));
    const outcome = await this.applications.submit({
      projectId,
      user,
      name: name.value,
      region: region.value,
      message: message?.value ?? null,
      code: code?.value ?? null,
      now: this.clock.now(),
    });
    if (outcome === 'open_exists') {
      throw new AlreadyExistsError('APPLICATION_OPEN', 'this user already has an application waiting for a decision (pending or on hold)');
    }
    if (outcome === 'already_affiliate') throw new AlreadyExistsError('AFFILIATE_EXISTS', 'this user is already an affiliate of this project');
    this.logger.info({ project_id: projectId, application_id: outcome.id }, 'application submitted');
    return outcome;
  }

  /** The user's latest application and, once approved, its affiliate. */
  async own(projectIdInput: string, userInput: UserInput): Promise<{ application: ApplicationRecord; affiliate: AffiliateRecord | null }> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const application = await this.applications.latestOf(projectId, user);
    if (!application) throw new NotFoundError('APPLICATION_NOT_FOUND', 'this user has not applied to this project');
    const affiliate =
      application.status === 'approved' && application.affiliateId ? await this.affiliates.findById(projectId, application.affiliateId) : undefined;
    return { application, affiliate: affiliate ?? null };
  }

  async get(projectIdInput: string, id: string): Promise<ApplicationRecord> {
    const projectId = requireProjectId(projectIdInput);
    const application = isUuid(id) ? await this.applications.find(projectId, id) : undefined;
    if (!application) throw applicationNotFound();
    return application;
  }

  async list(projectIdInput: string, status: ApplicationStatus | undefined, page: Page): Promise<{ records: ApplicationRecord[]; total: number }> {
    return this.applications.list(requireProjectId(projectIdInput), status, page);
  }

  async decide(projectIdInput: string, id: string, input: DecisionInput, actorId: string | null): Promise<ApplicationRecord> {
    const projectId = requireProjectId(projectIdInput);
    const decision = checkDecision(input);
    // The application first: a decided one is refused without asking the audience service.
    const current = await this.get(projectId, id);
    if (!APPLICATION_TRANSITIONS[decision.action].includes(current.status)) throw refused(decision.action, current.status);
    if (decision.action === 'approve') await this.requireStaticSegment(projectId, decision.audienceId);
    return this.apply(projectId, id, decision, actorId);
  }

  /**
   * One decision for many applications (at most 100), each succeeding or failing alone; the
   * decision itself (its reason, its segment) is checked once, and refuses the whole request.
   */
  async decideMany(projectIdInput: string, ids: readonly string[], input: DecisionInput, actorId: string | null): Promise<DecisionResult[]> {
    const projectId = requireProjectId(projectIdInput);
    if (ids.length === 0) throw invalidFields([{ field: 'application_ids', reason: 'must name at least one application' }]);
    if (ids.length > APPLICATION_LIMITS.maxBulkIds) {
      throw new ResourceExhaustedError('TOO_MANY_APPLICATIONS', `at most ${APPLICATION_LIMITS.maxBulkIds} applications per request`, [
        { field: 'application_ids', reason: `has ${ids.length}; the limit is ${APPLICATION_LIMITS.maxBulkIds}` },
      ]);
    }
    const decision = checkDecision(input);
    if (decision.action === 'approve') await this.requireStaticSegment(projectId, decision.audienceId);
    const results: DecisionResult[] = [];
    // One at a time, in the order given: an id named twice is decided once and refused the second time.
    for (const id of ids) {
      try {
        if (!isUuid(id)) throw applicationNotFound();
        results.push({ applicationId: id, application: await this.apply(projectId, id, decision, actorId) });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        results.push({ applicationId: id, error });
      }
    }
    return results;
  }

  private async apply(projectId: string, id: string, decision: Decision, actorId: string | null): Promise<ApplicationRecord> {
    const from = APPLICATION_TRANSITIONS[decision.action];
    const now = this.clock.now();
    let outcome: TransitionOutcome;
    switch (decision.action) {
      case 'approve':
        outcome = await this.applications.approve(
          projectId,
          id,
          from,
          { audienceId: decision.audienceId, actorId, maxCodes: REFERRAL_CODE_RULES.maxPerAffiliate },
          now,
        );
        // Committed: its event leaves now (the relay's periodic pass would find it otherwise).
        if (outcome.kind === 'done') this.outbox.wake();
        break;
      case 'reject':
        outcome = await this.applications.reject(projectId, id, from, decision.reason, actorId, now);
        if (outcome.kind === 'done') this.outbox.wake();
        break;
      case 'hold':
        outcome = await this.applications.hold(projectId, id, from, decision.note, actorId, now);
        break;
    }
    if (outcome.kind === 'not_found') throw applicationNotFound();
    if (outcome.kind === 'refused') throw refused(decision.action, outcome.status);
    this.logger.info({ project_id: projectId, application_id: id, action: decision.action, actor_api_key_id: actorId }, 'application decided');
    return outcome.application;
  }

  /** Approval adds the user to a segment: it must be a static one of this project. */
  private async requireStaticSegment(projectId: string, audienceId: string): Promise<void> {
    const segment = isUuid(audienceId) ? await this.audience.segment(projectId, audienceId) : undefined;
    if (!segment) throw new NotFoundError('AUDIENCE_NOT_FOUND', 'no audience segment of this project has this id');
    if (segment.type !== 'static') {
      throw new InvalidArgumentError(
        'AUDIENCE_NOT_STATIC',
        'approval adds the affiliate to a static audience; this one is dynamic (its entries follow a condition)',
        [{ field: 'audience_id', reason: 'must name a static audience segment' }],
      );
    }
  }
}

function checkDecision(input: DecisionInput): Decision {
  switch (input.action) {
    case 'approve':
      if (!input.audienceId)
        throw invalidFields([{ field: 'audience_id', reason: 'is required to approve: the static audience the affiliate joins' }]);
      return { action: 'approve', audienceId: input.audienceId };
    case 'reject': {
      const reason = checkReason(input.reason);
      throwIfInvalid(reason);
      return { action: 'reject', reason: reason.value };
    }
    case 'hold': {
      if (input.note === undefined || input.note.trim() === '') return { action: 'hold', note: null };
      const note = checkText(input.note, 'note', APPLICATION_LIMITS.noteLength);
      throwIfInvalid(note);
      return { action: 'hold', note: note.value };
    }
  }
}

/** A transition the state machine does not have: from a final status, or holding one already on hold. */
function refused(action: ApplicationAction, status: ApplicationStatus): ConflictError {
  if (status === 'approved' || status === 'rejected') {
    return new ConflictError('APPLICATION_DECIDED', `this application was already ${status}; a decision is final`);
  }
  return new ConflictError('APPLICATION_ON_HOLD', `this application is already on hold; it can be approved or rejected (not: ${action})`);
}
