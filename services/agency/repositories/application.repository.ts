import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { isUniqueViolation } from '../../platform/db/errors';
import { appendOutboxEvents } from '../../platform/outbox/append';
import type { NewOutboxEvent } from '../../platform/outbox/event';
import type { UserIdentifier } from '../../rules/identifiers';
import type { Page } from '../../rules/pagination';
import type { AgencyDatabase, ApplicationTable } from '../database';
import type { ApplicationStatus } from '../domain/vocabulary';
import { affiliateCreatedEvent, applicationDecidedEvent, statusChangedEvent } from './agency-events';
import { findAffiliateId, lockAffiliate } from './affiliate-lock';
import { type ProfileRecord, profileColumns, profileOf } from './affiliate-record';
import { createAffiliateMetrics } from './affiliate-metrics.repository';

export interface ApplicationRecord extends ProfileRecord {
  id: string;
  message: string | null;
  code: string | null;
  status: ApplicationStatus;
  createdAt: Date;
  updatedAt: Date;
  holdNote: string | null;
  heldAt: Date | null;
  decidedAt: Date | null;
  rejectionReason: string | null;
  audienceId: string | null;
  affiliateId: string | null;
  grantedCode: string | null;
}

/** What a user submits (the application's record gets the rest), at `now`. */
export type NewApplication = Pick<ApplicationRecord, 'projectId' | 'user' | 'name' | 'region' | 'message' | 'code'> & { now: Date };

export type SubmitOutcome = ApplicationRecord | 'open_exists' | 'already_affiliate';

/** What a transition found: done, no such application, or one whose status does not allow it. */
export type TransitionOutcome =
  { kind: 'done'; application: ApplicationRecord } | { kind: 'not_found' } | { kind: 'refused'; status: ApplicationStatus };

export interface Approval {
  audienceId: string;
  actorId: string | null;
  /** Codes one affiliate may hold; the desired code is given only below this. */
  maxCodes: number;
}

/**
 * Applications and their transitions. Each transition locks the application's row and checks its
 * status under the lock (`from`), so two admins deciding at once cannot both succeed. One open
 * application per user is a unique index on the open statuses.
 */
export class ApplicationRepository {
  constructor(private readonly db: Kysely<AgencyDatabase>) {}

  async submit(application: NewApplication): Promise<SubmitOutcome> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        if ((await findAffiliateId(trx, application.projectId, application.user)) !== undefined) return 'already_affiliate';
        const row = await trx
          .insertInto('applications')
          .values({
            ...profileColumns(application),
            message: application.message,
            code: application.code,
            status: 'pending',
            created_at: application.now,
            updated_at: application.now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return toRecord(row);
      });
    } catch (error) {
      if (isUniqueViolation(error, 'applications_one_open')) return 'open_exists';
      throw error;
    }
  }

  async find(projectId: string, id: string): Promise<ApplicationRecord | undefined> {
    const row = await this.db.selectFrom('applications').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
    return row && toRecord(row);
  }

  /** The user's latest application. */
  async latestOf(projectId: string, user: UserIdentifier): Promise<ApplicationRecord | undefined> {
    const row = await this.db
      .selectFrom('applications')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('identifier_type', '=', user.identifierType)
      .where('identifier', '=', user.identifier)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  /** Oldest first: the review queue. */
  async list(projectId: string, status: ApplicationStatus | undefined, page: Page): Promise<{ records: ApplicationRecord[]; total: number }> {
    let base = this.db.selectFrom('applications').where('project_id', '=', projectId);
    if (status !== undefined) base = base.where('status', '=', status);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('created_at').orderBy('id').limit(page.pageSize).offset(page.offset).execute(),
      base.select((eb) => eb.fn.countAll<bigint>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { records: rows.map(toRecord), total: Number(count.total) };
  }

  async hold(
    projectId: string,
    id: string,
    from: readonly ApplicationStatus[],
    note: string | null,
    actorId: string | null,
    now: Date,
  ): Promise<TransitionOutcome> {
    return this.transition(projectId, id, from, async (trx) =>
      trx
        .updateTable('applications')
        .set({ status: 'on_hold', hold_note: note, held_at: now, held_by: actorId, updated_at: now })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow(),
    );
  }

  async reject(
    projectId: string,
    id: string,
    from: readonly ApplicationStatus[],
    reason: string,
    actorId: string | null,
    now: Date,
  ): Promise<TransitionOutcome> {
    return this.transition(projectId, id, from, async (trx) => {
      const row = await trx
        .updateTable('applications')
        .set({ status: 'rejected', rejection_reason: reason, decided_at: now, decided_by: actorId, updated_at: now })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await appendOutboxEvents(trx, now, [decidedEvent(toRecord(row), now)]);
      return row;
    });
  }

  /**
   * In ONE transaction: the user becomes an active affiliate (created with the application's name
   * and region, or an existing one reactivated), gets the desired code when it is free, the
   * application is approved, and the event `agency.application.approved` is written to the outbox:
   * the audience service adds the user to the segment from it, at least once and idempotently.
   */
  async approve(projectId: string, id: string, from: readonly ApplicationStatus[], approval: Approval, now: Date): Promise<TransitionOutcome> {
    return this.transition(projectId, id, from, async (trx, current) => {
      const { id: affiliateId, change } = await activeAffiliate(trx, current, approval.actorId, now);
      const grantedCode = current.code === null ? null : await grantCode(trx, projectId, affiliateId, current.code, approval.maxCodes, now);
      const row = await trx
        .updateTable('applications')
        .set({
          status: 'approved',
          decided_at: now,
          decided_by: approval.actorId,
          audience_id: approval.audienceId,
          affiliate_id: affiliateId,
          granted_code: grantedCode,
          updated_at: now,
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      const approved = toRecord(row);
      const affiliateEvent =
        change === 'created'
          ? affiliateCreatedEvent({
              id: affiliateId,
              projectId,
              user: current.user,
              name: current.name,
              region: current.region,
              codes: grantedCode === null ? [] : [grantedCode],
              source: 'application',
              applicationId: id,
              joinedAt: now,
            })
          : change === 'reactivated'
            ? statusChangedEvent({ affiliateId, projectId, user: current.user, from: 'suspended', to: 'active', reason: null, at: now })
            : undefined;
      await appendOutboxEvents(trx, now, [approvedEvent(approved), ...(affiliateEvent ? [affiliateEvent] : []), decidedEvent(approved, now)]);
      return row;
    });
  }

  private async transition(
    projectId: string,
    id: string,
    from: readonly ApplicationStatus[],
    change: (trx: Transaction<AgencyDatabase>, current: ApplicationRecord) => Promise<Selectable<ApplicationTable>>,
  ): Promise<TransitionOutcome> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('applications')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst();
      if (!row) return { kind: 'not_found' };
      if (!from.includes(row.status)) return { kind: 'refused', status: row.status };
      return { kind: 'done', application: toRecord(await change(trx, toRecord(row))) };
    });
  }
}

/** The applicant as an active affiliate: created, or found (and reactivated when suspended). Its id, and what changed. */
async function activeAffiliate(
  trx: Transaction<AgencyDatabase>,
  application: ApplicationRecord,
  actorId: string | null,
  now: Date,
): Promise<{ id: string; change: 'created' | 'reactivated' | 'none' }> {
  const created = await trx
    .insertInto('affiliates')
    .values({
      ...profileColumns(application),
      status: 'active',
      joined_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.constraint('affiliates_user_key').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (created) {
    await createAffiliateMetrics(trx, application.projectId, created.id, now);
    return { id: created.id, change: 'created' };
  }
  // An admin made the user an affiliate meanwhile: approval makes it active.
  const existing = await lockAffiliate(trx, application.projectId, application.user);
  if (!existing) throw new Error(`the affiliate of application ${application.id} conflicted on insert but is not there`);
  if (existing.status === 'suspended') {
    await trx.updateTable('affiliates').set({ status: 'active', updated_at: now }).where('id', '=', existing.id).execute();
    await trx
      .updateTable('affiliate_suspensions')
      .set({ reactivated_at: sql<Date>`greatest(${now}::timestamptz, suspended_at)`, reactivated_by: actorId })
      .where('affiliate_id', '=', existing.id)
      .where('reactivated_at', 'is', null)
      .execute();
    return { id: existing.id, change: 'reactivated' };
  }
  return { id: existing.id, change: 'none' };
}

/**
 * The desired code, when nobody else in the project holds it (any letter case) and the affiliate
 * holds fewer than it may; the code as held, or null. Never fails the approval.
 */
async function grantCode(
  trx: Transaction<AgencyDatabase>,
  projectId: string,
  affiliateId: string,
  code: string,
  maxCodes: number,
  now: Date,
): Promise<string | null> {
  const held = await trx
    .selectFrom('affiliate_codes')
    .select(['code', 'affiliate_id'])
    .where('project_id', '=', projectId)
    .where(sql`lower(code)`, '=', code.toLowerCase())
    .executeTakeFirst();
  if (held) return held.affiliate_id === affiliateId ? held.code : null;
  // The lock the namespace's trigger takes (migration 0022): an invite code of the same letters being generated
  // now commits before the check below sees it, or waits for this transaction, so the insert never trips the trigger.
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`project-code:${projectId}:${code.toLowerCase()}`}, 0))`.execute(trx);
  // An invite code holds it too (one namespace of codes, migration 0022): not granted.
  const invite = await trx
    .selectFrom('invite_codes')
    .select('code')
    .where('project_id', '=', projectId)
    .where(sql`lower(code)`, '=', code.toLowerCase())
    .executeTakeFirst();
  if (invite) return null;
  // The affiliate's row is locked (created, or locked by lockAffiliate, in this transaction), so the count holds.
  const { rows } = await sql<{ code: string }>`
    INSERT INTO affiliate_codes (project_id, code, affiliate_id, created_at)
    SELECT ${projectId}, ${code}, ${affiliateId}, ${now}
    WHERE (SELECT count(*) FROM affiliate_codes WHERE affiliate_id = ${affiliateId}) < ${maxCodes}
    ON CONFLICT (project_id, lower(code)) DO NOTHING
    RETURNING code`.execute(trx);
  return rows[0]?.code ?? null;
}

/** The event the audience service adds the user to the segment from (services/platform/events/contracts.ts). */
function approvedEvent(application: ApplicationRecord): NewOutboxEvent {
  return {
    type: 'agency.application.approved',
    projectId: application.projectId,
    payload: {
      project_id: application.projectId,
      application_id: application.id,
      audience_id: application.audienceId!,
      user: { identifier: application.user.identifier, identifier_type: application.user.identifierType },
    },
  };
}

/** The public decision (agency.application.decided): approved or rejected. */
function decidedEvent(application: ApplicationRecord, now: Date): NewOutboxEvent {
  const approved = application.status === 'approved';
  return applicationDecidedEvent({
    id: application.id,
    projectId: application.projectId,
    user: application.user,
    decision: approved ? 'approved' : 'rejected',
    reason: approved ? null : application.rejectionReason,
    audienceId: approved ? application.audienceId : null,
    affiliateId: approved ? application.affiliateId : null,
    decidedAt: application.decidedAt ?? now,
  });
}

function toRecord(row: Selectable<ApplicationTable>): ApplicationRecord {
  return {
    id: row.id,
    ...profileOf(row),
    message: row.message,
    code: row.code,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    holdNote: row.hold_note,
    heldAt: row.held_at,
    decidedAt: row.decided_at,
    rejectionReason: row.rejection_reason,
    audienceId: row.audience_id,
    affiliateId: row.affiliate_id,
    grantedCode: row.granted_code,
  };
}
