import type { Clock } from '../../platform/clock';
import { MASTER_RULES } from '../../rules/contract-limits';
import { ConflictError, type FieldViolation, invalidFields, NotFoundError, ResourceExhaustedError } from '../../rules/errors';
import { checkIdentifiers, type UserIdentifier } from '../../rules/identifiers';
import { isUuid } from '../../rules/ids';
import type { Logger } from '../../platform/logger';
import type { Page } from '../../rules/pagination';
import type { EarningRecord } from '../repositories/affiliate-metrics.repository';
import type { MasterMetricsRepository, SubAffiliateQuery, SubAffiliateRecord } from '../repositories/master-metrics.repository';
import type { BindRefusal, MasterActor, MasterRecord, MasterRepository, SpreadPeriodRecord } from '../repositories/master.repository';
import type { AffiliateRefRecord } from '../repositories/referral.repository';
import { affiliateNotFound } from './affiliate-fields';
import { requireProjectId, subject, type UserInput } from '../../rules/subject';

/** A master with its figures from the metrics projection. */
export interface MasterView extends MasterRecord {
  /** Combined volume its sub-affiliates brought it while bound (the conversions' frozen master), USD. */
  referredVolumeUsd: string;
  /** Its agency payouts per currency. */
  earnings: EarningRecord[];
}

/** A master with what only its detail view carries. */
export interface MasterDetail extends MasterView {
  /** The spreads of the current designation, newest first. */
  spreadHistory: SpreadPeriodRecord[];
}

/** A new master, with the master it was a sub-affiliate of until its designation unbound it. */
export interface DesignatedMaster extends MasterDetail {
  unboundFrom: AffiliateRefRecord | null;
}

export interface BindResultView {
  affiliate: AffiliateRefRecord;
  /** False when it was already bound to this master. */
  bound: boolean;
}

export function agencyNotFound(): NotFoundError {
  return new NotFoundError('AGENCY_NOT_FOUND', 'no master affiliate of this project has this id');
}

function checkSpread(value: number): FieldViolation[] {
  return Number.isInteger(value) && value >= 0 && value <= MASTER_RULES.maxSpreadBps
    ? []
    : [{ field: 'spread_bps', reason: `must be a whole number of basis points from 0 to ${MASTER_RULES.maxSpreadBps}` }];
}

/**
 * Master affiliates ("agencies", specification §2.11): an admin designates an affiliate with a
 * spread, binds sub-affiliates to it and may remove the status. Every change closes a period and
 * opens the next, so attribution at any past moment finds the master and the spread of then, and
 * removing a master rewrites nothing that was paid.
 */
export class MasterService {
  constructor(
    private readonly masters: MasterRepository,
    private readonly metrics: MasterMetricsRepository,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /**
   * Any affiliate of the project (specification §2.11). A sub-affiliate is unbound from its master in
   * the same transaction (a master is never a sub-affiliate): the binding's period ends at the
   * designation, named by it in both histories.
   */
  async designate(projectIdInput: string, userInput: UserInput, spreadBps: number, actor: MasterActor): Promise<DesignatedMaster> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const violations = checkSpread(spreadBps);
    if (violations.length > 0) throw invalidFields(violations);
    const outcome = await this.masters.designate(projectId, user, spreadBps, actor, this.clock.now());
    switch (outcome.kind) {
      case 'no_affiliate':
        throw affiliateNotFound();
      case 'already_master':
        throw new ConflictError('ALREADY_MASTER', 'this affiliate is already a master affiliate; change its spread with PATCH');
      case 'designated':
        this.logger.info(
          {
            project_id: projectId,
            master_id: outcome.masterId,
            spread_bps: spreadBps,
            unbound_from_master_id: outcome.unboundFrom?.id ?? null,
            actor_api_key_id: actor.apiKeyId,
          },
          'master affiliate designated',
        );
        return { ...(await this.get(projectId, outcome.masterId)), unboundFrom: outcome.unboundFrom };
    }
  }

  async updateSpread(projectIdInput: string, masterIdInput: string, spreadBps: number, actor: MasterActor): Promise<MasterDetail> {
    const { projectId, masterId } = this.target(projectIdInput, masterIdInput);
    const violations = checkSpread(spreadBps);
    if (violations.length > 0) throw invalidFields(violations);
    const outcome = await this.masters.updateSpread(projectId, masterId, spreadBps, actor, this.clock.now());
    if (outcome === 'not_master') throw agencyNotFound();
    if (outcome === 'changed') {
      this.logger.info(
        { project_id: projectId, master_id: masterId, spread_bps: spreadBps, actor_api_key_id: actor.apiKeyId },
        'master spread changed',
      );
    }
    return this.get(projectId, masterId);
  }

  /** Its sub-affiliates become regular affiliates; every past period stays. */
  async remove(projectIdInput: string, masterIdInput: string, actor: MasterActor): Promise<{ released: number }> {
    const { projectId, masterId } = this.target(projectIdInput, masterIdInput);
    const outcome = await this.masters.remove(projectId, masterId, actor, this.clock.now());
    if (outcome.kind === 'not_master') throw agencyNotFound();
    this.logger.info(
      { project_id: projectId, master_id: masterId, released: outcome.released, actor_api_key_id: actor.apiKeyId },
      'master status removed',
    );
    return { released: outcome.released };
  }

  async get(projectIdInput: string, masterIdInput: string): Promise<MasterDetail> {
    const { projectId, masterId } = this.target(projectIdInput, masterIdInput);
    const [master, spreadHistory] = await Promise.all([this.masters.find(projectId, masterId), this.masters.spreadHistory(masterId)]);
    if (!master) throw agencyNotFound();
    const [view] = await this.withFigures(projectId, [master]);
    return { ...view!, spreadHistory };
  }

  async list(projectIdInput: string, page: Page): Promise<{ records: MasterView[]; total: number }> {
    const projectId = requireProjectId(projectIdInput);
    const { records, total } = await this.masters.list(projectId, page);
    return { records: await this.withFigures(projectId, records), total };
  }

  /** Referred volume and agency earnings of a page of masters: two queries whatever its size. */
  private async withFigures(projectId: string, records: readonly MasterRecord[]): Promise<MasterView[]> {
    const figures = await this.metrics.figuresOf(
      projectId,
      records.map((record) => record.id),
    );
    return records.map((record) => {
      const metrics = figures.get(record.id);
      return { ...record, referredVolumeUsd: metrics?.referredVolumeUsd ?? '0', earnings: metrics?.agencyEarnings ?? [] };
    });
  }

  /**
   * All or nothing (docs/api-conventions.md: a batch write is atomic per request): every user is bound, or none
   * is and the error lists each refused one by its index. Binding one already bound here changes nothing.
   */
  async bind(projectIdInput: string, masterIdInput: string, usersInput: readonly UserInput[], actor: MasterActor): Promise<BindResultView[]> {
    const { projectId, masterId } = this.target(projectIdInput, masterIdInput);
    const users = checkBindUsers(usersInput);
    const outcome = await this.masters.bind(projectId, masterId, users, actor, this.clock.now());
    if (outcome.kind === 'not_master') throw agencyNotFound();
    if (outcome.kind === 'refused') throw bindRefused(outcome.refusals);
    const added = outcome.results.filter((result) => result.bound).length;
    if (added > 0)
      this.logger.info({ project_id: projectId, master_id: masterId, bound: added, actor_api_key_id: actor.apiKeyId }, 'sub-affiliates bound');
    return outcome.results;
  }

  async unbind(projectIdInput: string, masterIdInput: string, userInput: UserInput, actor: MasterActor): Promise<void> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const masterId = this.target(projectId, masterIdInput).masterId;
    if (await this.masters.unbind(projectId, masterId, user, actor, this.clock.now())) {
      this.logger.info({ project_id: projectId, master_id: masterId, actor_api_key_id: actor.apiKeyId }, 'sub-affiliate unbound');
      return;
    }
    // Say which is missing: the master, or the binding.
    await this.get(projectId, masterId);
    throw new NotFoundError('SUB_AFFILIATE_NOT_FOUND', 'this user is not a sub-affiliate of this master affiliate');
  }

  /**
   * Every affiliate ever bound to the master, former ones included (`bound: false`) unless `bound`
   * says otherwise: so the volume they brought sums to the master's referred volume.
   */
  async listSubAffiliates(
    projectIdInput: string,
    masterIdInput: string,
    query: Partial<SubAffiliateQuery>,
    page: Page,
  ): Promise<{ records: SubAffiliateRecord[]; total: number }> {
    const { projectId, masterId } = this.target(projectIdInput, masterIdInput);
    if (!(await this.masters.find(projectId, masterId))) throw agencyNotFound();
    return this.metrics.subAffiliates(projectId, masterId, { bound: query.bound, sort: query.sort ?? 'bound_at', order: query.order }, page);
  }

  private target(projectIdInput: string, masterId: string): { projectId: string; masterId: string } {
    const projectId = requireProjectId(projectIdInput);
    if (!isUuid(masterId)) throw agencyNotFound();
    return { projectId, masterId };
  }
}

function checkBindUsers(users: readonly UserInput[]): UserIdentifier[] {
  if (users.length === 0) throw invalidFields([{ field: 'user_identifiers', reason: 'must name at least one affiliate' }]);
  if (users.length > MASTER_RULES.maxBindUsers) {
    throw new ResourceExhaustedError('TOO_MANY_USERS', `at most ${MASTER_RULES.maxBindUsers} affiliates per request`, [
      { field: 'user_identifiers', reason: `has ${users.length}; the limit is ${MASTER_RULES.maxBindUsers}` },
    ]);
  }
  const checked = checkIdentifiers(users, 'user_identifiers');
  if (checked.users === undefined) {
    // The API names each identifier by its index alone, and one type for them all.
    const renamed = checked.violations.map((violation) => ({
      ...violation,
      field: violation.field.endsWith('.identifier_type') ? 'user_identifier_type' : violation.field.replace(/\.identifier$/, ''),
    }));
    throw invalidFields(renamed.filter((violation, index) => renamed.findIndex((other) => other.field === violation.field) === index));
  }
  return checked.users;
}

const REFUSAL_REASONS: Record<BindRefusal['kind'], string> = {
  no_affiliate: 'is not an affiliate of this project',
  is_master: 'is a master affiliate; a master is never a sub-affiliate',
  already_bound: 'is bound to another master affiliate',
};

/** Nobody was bound: 404 when some user is no affiliate, else 409 (ALREADY_BOUND when that is the only reason). */
function bindRefused(refusals: readonly BindRefusal[]): Error {
  if (refusals.length === 0)
    return new ConflictError('ALREADY_BOUND', 'another request bound one of these affiliates at the same moment; nothing was bound, try again');
  const details = refusals.map((refusal) => ({
    field: `user_identifiers[${refusal.index}]`,
    reason: refusal.kind === 'already_bound' ? `${REFUSAL_REASONS.already_bound} (${refusal.master.id})` : REFUSAL_REASONS[refusal.kind],
  }));
  const unknown = refusals.filter((refusal) => refusal.kind === 'no_affiliate');
  if (unknown.length > 0) {
    return new NotFoundError(
      'AFFILIATE_NOT_FOUND',
      `${unknown.length} of these users ${unknown.length === 1 ? 'is' : 'are'} not affiliates of this project; nothing was bound`,
      details,
    );
  }
  const code = refusals.some((refusal) => refusal.kind === 'already_bound') ? 'ALREADY_BOUND' : 'IS_MASTER';
  return new ConflictError(
    code,
    `${refusals.length} of these affiliates cannot be bound (an affiliate has at most one master, and a master is never a sub-affiliate); nothing was bound`,
    details,
  );
}
