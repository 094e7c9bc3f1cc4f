import { type Kysely, sql, type Transaction } from 'kysely';
import { isUniqueViolation } from '../../platform/db/errors';
import { appendOutboxEvents } from '../../platform/outbox/append';
import type { UserIdentifier } from '../../rules/identifiers';
import type { Page } from '../../rules/pagination';
import type { AgencyDatabase } from '../database';
import type { AffiliateStatus } from '../domain/vocabulary';
import { affiliateCreatedEvent, statusChangedEvent } from './agency-events';
import { findAffiliateId, lockAffiliate } from './affiliate-lock';
import { type AffiliateFilters, type AffiliateListRecord, type AffiliateSort, DEFAULT_AFFILIATE_SORT, listAffiliates } from './affiliate-list';
import {
  type AffiliateCodeRecord,
  type AffiliateCodeStatsRecord,
  type AffiliateRecord,
  type ProfileRecord,
  profileColumns,
  toAffiliateRecord,
} from './affiliate-record';
import { type AffiliateMetricsRecord, createAffiliateMetrics, metricsOf } from './affiliate-metrics.repository';

export interface NewAffiliate extends ProfileRecord {
  /** Registered in the same transaction: the affiliate is created with it or not at all. */
  code: string | null;
  /** The code's user rebate rate (basis points); null: none. */
  codeRebateRateBps: number | null;
  /** Who created it (the agency.affiliate.created event says so). */
  source: 'admin' | 'self_service';
  now: Date;
}

export interface AffiliateChanges {
  name?: string;
  region?: string | null;
  now: Date;
}

/** Why a write did not happen: the domain turns each into its error. */
export type InsertOutcome = AffiliateRecord | 'affiliate_exists' | 'code_taken';
export type CodeOutcome = 'added' | 'no_affiliate' | 'code_taken' | 'limit_reached';
/** `already_held`: the affiliate holds the code already (any case), so a retry changes nothing. */
export type CodeUpdateOutcome = CodeOutcome | 'already_held';
export type RebateRateOutcome = 'set' | 'no_affiliate' | 'no_code';
export type StatusOutcome = 'changed' | 'no_affiliate' | 'unchanged';

/**
 * Affiliates, their codes and their status history. Uniqueness (one affiliate per user, one code
 * per project whatever its case, one open suspension) is enforced by the schema's constraints; the
 * per-affiliate code limit by a lock on the affiliate's row while codes are counted.
 */
export class AffiliateRepository {
  constructor(private readonly db: Kysely<AgencyDatabase>) {}

  async insert(affiliate: NewAffiliate): Promise<InsertOutcome> {
    try {
      const id = await this.db.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto('affiliates')
          .values({
            ...profileColumns(affiliate),
            status: 'active',
            joined_at: affiliate.now,
            updated_at: affiliate.now,
          })
          .onConflict((oc) => oc.constraint('affiliates_user_key').doNothing())
          .returning('id')
          .executeTakeFirst();
        if (!row) return undefined;
        await createAffiliateMetrics(trx, affiliate.projectId, row.id, affiliate.now);
        if (affiliate.code !== null) {
          await insertCode(trx, affiliate.projectId, row.id, affiliate.code, affiliate.now, affiliate.codeRebateRateBps);
        }
        await appendOutboxEvents(trx, affiliate.now, [
          affiliateCreatedEvent({
            id: row.id,
            projectId: affiliate.projectId,
            user: affiliate.user,
            name: affiliate.name,
            region: affiliate.region,
            codes: affiliate.code === null ? [] : [affiliate.code],
            source: affiliate.source,
            applicationId: null,
            joinedAt: affiliate.now,
          }),
        ]);
        return row.id;
      });
      if (id === undefined) return 'affiliate_exists';
      return (await this.findById(affiliate.projectId, id))!;
    } catch (error) {
      if (isUniqueViolation(error, 'affiliate_codes_project_code_key')) return 'code_taken';
      throw error;
    }
  }

  async findByUser(projectId: string, user: UserIdentifier): Promise<AffiliateRecord | undefined> {
    const row = await this.selectAffiliates()
      .where('a.project_id', '=', projectId)
      .where('a.identifier_type', '=', user.identifierType)
      .where('a.identifier', '=', user.identifier)
      .executeTakeFirst();
    return row && (await this.withCodes([row]))[0];
  }

  async findById(projectId: string, id: string): Promise<AffiliateRecord | undefined> {
    const row = await this.selectAffiliates().where('a.project_id', '=', projectId).where('a.id', '=', id).executeTakeFirst();
    return row && (await this.withCodes([row]))[0];
  }

  /** Whether the project holds the code (any letter case) as an affiliate code or an invite code: one namespace (migration 0022). */
  async codeTaken(projectId: string, code: string): Promise<boolean> {
    const { rows } = await sql<{ taken: boolean }>`
      SELECT EXISTS (SELECT 1 FROM affiliate_codes WHERE project_id = ${projectId} AND lower(code) = ${code.toLowerCase()})
          OR EXISTS (SELECT 1 FROM invite_codes WHERE project_id = ${projectId} AND lower(code) = ${code.toLowerCase()}) AS taken`.execute(this.db);
    return rows[0]?.taken === true;
  }

  /** A page of the affiliate list (affiliate-list/: its filters, order and items). */
  list(
    projectId: string,
    filters: AffiliateFilters,
    page: Page,
    sort: AffiliateSort = DEFAULT_AFFILIATE_SORT,
    now: Date = new Date(),
  ): Promise<{ records: AffiliateListRecord[]; total: number }> {
    return listAffiliates(this.db, projectId, filters, page, sort, now);
  }

  /** The figures and earnings of these affiliates (metrics projection). */
  metricsOf(projectId: string, ids: readonly string[]): Promise<Map<string, AffiliateMetricsRecord>> {
    return metricsOf(this.db, projectId, ids);
  }

  async update(projectId: string, user: UserIdentifier, changes: AffiliateChanges): Promise<AffiliateRecord | undefined> {
    const row = await this.db
      .updateTable('affiliates')
      .set({
        ...(changes.name !== undefined && { name: changes.name }),
        ...(changes.region !== undefined && { region: changes.region }),
        updated_at: changes.now,
      })
      .where('project_id', '=', projectId)
      .where('identifier_type', '=', user.identifierType)
      .where('identifier', '=', user.identifier)
      .returning('id')
      .executeTakeFirst();
    return row && this.findById(projectId, row.id);
  }

  /**
   * active or flagged -> suspended, opening a period of the history, in one transaction. A flagged
   * affiliate's flag period ends with it (suspension is the stronger status: it earns nothing).
   */
  async suspend(projectId: string, user: UserIdentifier, reason: string, actorId: string | null, now: Date): Promise<StatusOutcome> {
    return this.db.transaction().execute(async (trx) => {
      let from: AffiliateStatus = 'active';
      let row = await changeStatus(trx, projectId, user, 'active', 'suspended', now);
      if (!row) {
        from = 'flagged';
        row = await changeStatus(trx, projectId, user, 'flagged', 'suspended', now);
        if (row) await closeFlag(trx, row.id, actorId, now);
      }
      if (!row) return (await this.exists(trx, projectId, user)) ? 'unchanged' : 'no_affiliate';
      await trx
        .insertInto('affiliate_suspensions')
        .values({ affiliate_id: row.id, project_id: projectId, reason, suspended_at: now, suspended_by: actorId })
        .execute();
      await appendOutboxEvents(trx, now, [statusChangedEvent({ affiliateId: row.id, projectId, user, from, to: 'suspended', reason, at: now })]);
      return 'changed';
    });
  }

  /**
   * active -> flagged, opening a flag period, in one transaction. A flagged affiliate is left as it
   * is (its first reason kept), and so is a suspended one: the domain tells the two apart.
   */
  async flag(projectId: string, user: UserIdentifier, reason: string, actorId: string | null, now: Date): Promise<StatusOutcome> {
    return this.db.transaction().execute(async (trx) => {
      const row = await changeStatus(trx, projectId, user, 'active', 'flagged', now);
      if (!row) return (await this.exists(trx, projectId, user)) ? 'unchanged' : 'no_affiliate';
      await trx
        .insertInto('affiliate_flags')
        .values({ affiliate_id: row.id, project_id: projectId, reason, flagged_at: now, flagged_by: actorId })
        .execute();
      await appendOutboxEvents(trx, now, [
        statusChangedEvent({ affiliateId: row.id, projectId, user, from: 'active', to: 'flagged', reason, at: now }),
      ]);
      return 'changed';
    });
  }

  /** flagged -> active, closing the open flag period; any other status is left as it is. */
  async unflag(projectId: string, user: UserIdentifier, actorId: string | null, now: Date): Promise<StatusOutcome> {
    return this.db.transaction().execute(async (trx) => {
      const row = await changeStatus(trx, projectId, user, 'flagged', 'active', now);
      if (!row) return (await this.exists(trx, projectId, user)) ? 'unchanged' : 'no_affiliate';
      await closeFlag(trx, row.id, actorId, now);
      await appendOutboxEvents(trx, now, [
        statusChangedEvent({ affiliateId: row.id, projectId, user, from: 'flagged', to: 'active', reason: null, at: now }),
      ]);
      return 'changed';
    });
  }

  /** suspended -> active, closing the open period. */
  async reactivate(projectId: string, user: UserIdentifier, actorId: string | null, now: Date): Promise<StatusOutcome> {
    return this.db.transaction().execute(async (trx) => {
      const row = await changeStatus(trx, projectId, user, 'suspended', 'active', now);
      if (!row) return (await this.exists(trx, projectId, user)) ? 'unchanged' : 'no_affiliate';
      await trx
        .updateTable('affiliate_suspensions')
        // A clock behind the period's start (another replica's) still closes it, never before it began.
        .set({ reactivated_at: sql<Date>`greatest(${now}::timestamptz, suspended_at)`, reactivated_by: actorId })
        .where('affiliate_id', '=', row.id)
        .where('reactivated_at', 'is', null)
        .execute();
      await appendOutboxEvents(trx, now, [
        statusChangedEvent({ affiliateId: row.id, projectId, user, from: 'suspended', to: 'active', reason: null, at: now }),
      ]);
      return 'changed';
    });
  }

  /** Adds a code, unless the project has it (any case) or the affiliate already holds the most it may. */
  async addCode(projectId: string, user: UserIdentifier, code: string, maxPerAffiliate: number, now: Date): Promise<CodeOutcome> {
    const outcome = await this.addNewCode(projectId, user, code, maxPerAffiliate, now, { carryRebateRate: false });
    return outcome === 'already_held' ? 'code_taken' : outcome;
  }

  /**
   * The affiliate's code update (the SDK's updateAffiliateCode): the code is added as its newest, with
   * the rebate rate of its newest code until now; the older codes stay (their referrals, links and
   * figures with them). A code the affiliate already holds (any case) is `already_held`.
   */
  updateCode(projectId: string, user: UserIdentifier, code: string, maxPerAffiliate: number, now: Date): Promise<CodeUpdateOutcome> {
    return this.addNewCode(projectId, user, code, maxPerAffiliate, now, { carryRebateRate: true });
  }

  /** Sets (null: clears) the user rebate rate of one of the affiliate's codes, matched whatever its case. */
  async setRebateRate(projectId: string, user: UserIdentifier, code: string, bps: number | null, now: Date): Promise<RebateRateOutcome> {
    return this.db.transaction().execute(async (trx) => {
      const affiliate = await lockAffiliate(trx, projectId, user);
      if (!affiliate) return 'no_affiliate';
      const updated = await trx
        .updateTable('affiliate_codes')
        .set({ user_rebate_rate_bps: bps })
        .where('affiliate_id', '=', affiliate.id)
        .where(sql`lower(code)`, '=', code.toLowerCase())
        .returning('id')
        .executeTakeFirst();
      if (!updated) return 'no_code';
      await trx.updateTable('affiliates').set({ updated_at: now }).where('id', '=', affiliate.id).execute();
      return 'set';
    });
  }

  /**
   * What each of the affiliate's codes brought, by code as registered, in one statement: its clicks
   * (code_clicks keeps codes lower-cased) and the affiliate's payouts for the conversions of the users
   * it referred through the code (conversion facts are net of reversals), in whole units of each known
   * currency (a payout in a currency not known yet is left out), summed.
   */
  async codeStats(projectId: string, affiliateId: string): Promise<Map<string, AffiliateCodeStatsRecord>> {
    const rows = await this.db
      .with('earned', (db) =>
        db
          .selectFrom('conversion_facts as f')
          .innerJoin('referrals as r', (join) =>
            join
              .onRef('r.project_id', '=', 'f.project_id')
              .onRef('r.identifier_type', '=', 'f.identifier_type')
              .onRef('r.identifier', '=', 'f.identifier')
              .onRef('r.affiliate_id', '=', 'f.affiliate_id'),
          )
          .innerJoin('metric_currencies as cur', 'cur.id', 'f.currency_id')
          .select(['r.code', sql<string>`sum(f.affiliate_payout / power(10::numeric, cur.decimals))`.as('earnings')])
          .where('f.project_id', '=', projectId)
          .where('f.affiliate_id', '=', affiliateId)
          .groupBy('r.code'),
      )
      .selectFrom('affiliate_codes as c')
      .leftJoin('earned as e', 'e.code', 'c.code')
      .select((eb) => [
        'c.code',
        eb
          .selectFrom('code_clicks as k')
          .select((inner) => inner.fn.countAll<bigint>().as('clicks'))
          .whereRef('k.project_id', '=', 'c.project_id')
          .where('k.code', '=', sql<string>`lower(c.code)`)
          .as('clicks'),
        sql<string>`trim_scale(coalesce(e.earnings, 0))::text`.as('earnings'),
      ])
      .where('c.project_id', '=', projectId)
      .where('c.affiliate_id', '=', affiliateId)
      .execute();
    return new Map(rows.map((row) => [row.code, { clicks: BigInt(row.clicks ?? 0), earnings: row.earnings }]));
  }

  private async addNewCode(
    projectId: string,
    user: UserIdentifier,
    code: string,
    maxPerAffiliate: number,
    now: Date,
    { carryRebateRate }: { carryRebateRate: boolean },
  ): Promise<CodeUpdateOutcome> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        // The lock makes count-then-insert exact under concurrent adds for one affiliate.
        const affiliate = await lockAffiliate(trx, projectId, user);
        if (!affiliate) return 'no_affiliate';
        const held = await trx
          .selectFrom('affiliate_codes')
          .select(['code', 'user_rebate_rate_bps'])
          .where('affiliate_id', '=', affiliate.id)
          .orderBy('id', 'desc')
          .execute();
        if (held.some((row) => row.code.toLowerCase() === code.toLowerCase())) return 'already_held';
        if (held.length >= maxPerAffiliate) return 'limit_reached';
        const rebateRateBps = carryRebateRate ? (held[0]?.user_rebate_rate_bps ?? null) : null;
        await insertCode(trx, projectId, affiliate.id, code, now, rebateRateBps);
        await trx.updateTable('affiliates').set({ updated_at: now }).where('id', '=', affiliate.id).execute();
        return 'added';
      });
    } catch (error) {
      if (isUniqueViolation(error, 'affiliate_codes_project_code_key')) return 'code_taken';
      throw error;
    }
  }

  private async exists(trx: Transaction<AgencyDatabase>, projectId: string, user: UserIdentifier): Promise<boolean> {
    return (await findAffiliateId(trx, projectId, user)) !== undefined;
  }

  private selectAffiliates() {
    return selectAffiliates(this.db);
  }

  /** The affiliates with their codes (oldest first) and each code's uses: one query for all of them. */
  private async withCodes(rows: AffiliateRow[]): Promise<AffiliateRecord[]> {
    if (rows.length === 0) return [];
    const codes = await this.db
      .selectFrom('affiliate_codes as c')
      .select((eb) => [
        'c.affiliate_id',
        'c.code',
        'c.created_at',
        'c.user_rebate_rate_bps',
        eb
          .selectFrom('referrals as r')
          .select((inner) => inner.fn.countAll<bigint>().as('uses'))
          .whereRef('r.affiliate_id', '=', 'c.affiliate_id')
          .whereRef('r.code', '=', 'c.code')
          .as('uses'),
      ])
      .where(
        'c.affiliate_id',
        'in',
        rows.map((row) => row.id),
      )
      .orderBy('c.id')
      .execute();
    const byAffiliate = new Map<string, AffiliateCodeRecord[]>();
    for (const code of codes) {
      const list = byAffiliate.get(code.affiliate_id) ?? [];
      list.push({ code: code.code, uses: BigInt(code.uses ?? 0), createdAt: code.created_at, userRebateRateBps: code.user_rebate_rate_bps });
      byAffiliate.set(code.affiliate_id, list);
    }
    return rows.map((row) => toAffiliateRecord(row, byAffiliate.get(row.id) ?? []));
  }
}

function selectAffiliates(db: Kysely<AgencyDatabase>) {
  return db
    .selectFrom('affiliates as a')
    .leftJoin('affiliate_suspensions as s', (join) => join.onRef('s.affiliate_id', '=', 'a.id').on('s.reactivated_at', 'is', null))
    .leftJoin('affiliate_flags as f', (join) => join.onRef('f.affiliate_id', '=', 'a.id').on('f.unflagged_at', 'is', null))
    .select([
      'a.id',
      'a.project_id',
      'a.identifier_type',
      'a.identifier',
      'a.name',
      'a.region',
      'a.status',
      'a.joined_at',
      'a.updated_at',
      's.suspended_at',
      's.reason as suspension_reason',
      'f.flagged_at',
      'f.reason as flag_reason',
    ]);
}

type AffiliateQuery = ReturnType<typeof selectAffiliates>;
type AffiliateRow = Awaited<ReturnType<AffiliateQuery['executeTakeFirstOrThrow']>>;

async function insertCode(
  trx: Transaction<AgencyDatabase>,
  projectId: string,
  affiliateId: string,
  code: string,
  now: Date,
  rebateRateBps: number | null,
): Promise<void> {
  await trx
    .insertInto('affiliate_codes')
    .values({ project_id: projectId, code, affiliate_id: affiliateId, created_at: now, user_rebate_rate_bps: rebateRateBps })
    .execute();
}

/** Ends the affiliate's open flag period (unflagged, or suspended). */
async function closeFlag(trx: Transaction<AgencyDatabase>, affiliateId: string, actorId: string | null, now: Date): Promise<void> {
  await trx
    .updateTable('affiliate_flags')
    // A clock behind the period's start (another replica's) still closes it, never before it began.
    .set({ unflagged_at: sql<Date>`greatest(${now}::timestamptz, flagged_at)`, unflagged_by: actorId })
    .where('affiliate_id', '=', affiliateId)
    .where('unflagged_at', 'is', null)
    .execute();
}

function changeStatus(
  trx: Transaction<AgencyDatabase>,
  projectId: string,
  user: UserIdentifier,
  from: AffiliateStatus,
  to: AffiliateStatus,
  now: Date,
) {
  return trx
    .updateTable('affiliates')
    .set({ status: to, updated_at: now })
    .where('project_id', '=', projectId)
    .where('identifier_type', '=', user.identifierType)
    .where('identifier', '=', user.identifier)
    .where('status', '=', from)
    .returning('id')
    .executeTakeFirst();
}
