import { type Kysely, sql, type Transaction } from 'kysely';
import { isUniqueViolation } from '../../platform/db/errors';
import type { UserIdentifier } from '../../rules/identifiers';
import type { Page } from '../../rules/pagination';
import type { AgencyDatabase } from '../database';
import { findAffiliateId, lockAffiliatesById } from './affiliate-lock';
import { AFFILIATE_SUMMARY_COLUMNS, type AffiliateSummaryRecord, toAffiliateSummary } from './affiliate-record';
import type { AffiliateRefRecord } from './referral.repository';

export interface SpreadPeriodRecord {
  spreadBps: number;
  validFrom: Date;
  validTo: Date | null;
}

/** `id` is the master's affiliate id. */
export interface MasterRecord extends AffiliateSummaryRecord {
  spreadBps: number;
  subAffiliatesCount: number;
  designatedAt: Date;
}

/** An affiliate's place among masters now: the master it is bound to, and whether it is one. */
export interface MasterRelation {
  master: AffiliateRefRecord | null;
  isMaster: boolean;
}

/** `unboundFrom`: the master it was a sub-affiliate of until this designation unbound it (null when it was bound to none). */
export type DesignateOutcome =
  { kind: 'designated'; masterId: string; unboundFrom: AffiliateRefRecord | null } | { kind: 'no_affiliate' } | { kind: 'already_master' };
export type SpreadOutcome = 'changed' | 'unchanged' | 'not_master';
export type RemoveOutcome = { kind: 'removed'; released: number } | { kind: 'not_master' };

/** Why one user of a bind request cannot be bound (the whole request then binds nobody). */
export type BindRefusal =
  | { index: number; kind: 'no_affiliate' }
  | { index: number; kind: 'is_master' }
  | { index: number; kind: 'already_bound'; master: AffiliateRefRecord };

export type BindOutcome =
  | { kind: 'bound'; results: Array<{ affiliate: AffiliateRefRecord; bound: boolean }> }
  | { kind: 'not_master' }
  | { kind: 'refused'; refusals: BindRefusal[] };

export interface MasterActor {
  apiKeyId: string | null;
}

interface AffiliateRelationRow {
  id: string;
  identifier: string;
  identifier_type: UserIdentifier['identifierType'];
  designation_id: string | null;
  bound_master_id: string | null;
  bound_master_identifier: string | null;
  bound_master_identifier_type: UserIdentifier['identifierType'] | null;
}

/**
 * Masters, their spreads and their sub-affiliates, each a history of periods [from, to). The
 * rules "at most one master per affiliate" and "one designation, one spread at a time" are unique
 * indexes on the open periods; "a master is never a sub-affiliate" holds because designating and
 * binding lock the affiliates' rows (in id order) before they look, and designating a sub-affiliate
 * closes its binding in the same transaction.
 */
export class MasterRepository {
  constructor(private readonly db: Kysely<AgencyDatabase>) {}

  async designate(projectId: string, user: UserIdentifier, spreadBps: number, actor: MasterActor, now: Date): Promise<DesignateOutcome> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const affiliateId = await findAffiliateId(trx, projectId, user);
        if (affiliateId === undefined) return { kind: 'no_affiliate' };
        const [locked] = await lockAffiliates(trx, projectId, [affiliateId]);
        if (locked?.designation_id) return { kind: 'already_master' };
        const designation = await trx
          .insertInto('agency_designations')
          .values({ project_id: projectId, affiliate_id: affiliateId, designated_at: now, designated_by: actor.apiKeyId })
          .returning('id')
          .executeTakeFirstOrThrow();
        await trx
          .insertInto('agency_spreads')
          .values({ designation_id: designation.id, master_id: affiliateId, spread_bps: spreadBps, valid_from: now, set_by: actor.apiKeyId })
          .execute();
        // A sub-affiliate becomes a master: its binding ends now, naming this designation (both histories show why).
        // Its row lock keeps binds out; an unbind or its master's removal closing the binding meanwhile leaves nothing to close here.
        const unbound = await trx
          .updateTable('sub_affiliate_bindings')
          .set({
            bound_to: sql<Date>`greatest(${now}::timestamptz, bound_from)`,
            unbound_by: actor.apiKeyId,
            ended_by_designation_id: designation.id,
          })
          .where('affiliate_id', '=', affiliateId)
          .where('bound_to', 'is', null)
          .returning('master_id')
          .executeTakeFirst();
        const unboundFrom = unbound ? await affiliateRef(trx, unbound.master_id) : null;
        return { kind: 'designated', masterId: affiliateId, unboundFrom };
      });
    } catch (error) {
      if (isUniqueViolation(error, 'agency_designations_one_open')) return { kind: 'already_master' };
      throw error;
    }
  }

  /** Closes the spread in force and opens the next at the same instant, so every moment has exactly one. */
  async updateSpread(projectId: string, masterId: string, spreadBps: number, actor: MasterActor, now: Date): Promise<SpreadOutcome> {
    return this.db.transaction().execute(async (trx) => {
      const designation = await lockDesignation(trx, projectId, masterId);
      if (!designation) return 'not_master';
      const current = await trx
        .selectFrom('agency_spreads')
        .select(['id', 'spread_bps'])
        .where('master_id', '=', masterId)
        .where('valid_to', 'is', null)
        .executeTakeFirstOrThrow();
      if (current.spread_bps === spreadBps) return 'unchanged';
      const closed = await trx
        .updateTable('agency_spreads')
        // A clock behind the period's start (another replica's) still closes it, never before it began.
        .set({ valid_to: sql<Date>`greatest(${now}::timestamptz, valid_from)` })
        .where('id', '=', current.id)
        .returning('valid_to')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('agency_spreads')
        .values({ designation_id: designation.id, master_id: masterId, spread_bps: spreadBps, valid_from: closed.valid_to!, set_by: actor.apiKeyId })
        .execute();
      return 'changed';
    });
  }

  /** Ends the designation, its spread and every binding to it at `now`; nothing is deleted. */
  async remove(projectId: string, masterId: string, actor: MasterActor, now: Date): Promise<RemoveOutcome> {
    return this.db.transaction().execute(async (trx) => {
      const designation = await lockDesignation(trx, projectId, masterId);
      if (!designation) return { kind: 'not_master' };
      await trx
        .updateTable('agency_designations')
        .set({ removed_at: sql<Date>`greatest(${now}::timestamptz, designated_at)`, removed_by: actor.apiKeyId })
        .where('id', '=', designation.id)
        .execute();
      await trx
        .updateTable('agency_spreads')
        .set({ valid_to: sql<Date>`greatest(${now}::timestamptz, valid_from)` })
        .where('master_id', '=', masterId)
        .where('valid_to', 'is', null)
        .execute();
      const released = await trx
        .updateTable('sub_affiliate_bindings')
        .set({ bound_to: sql<Date>`greatest(${now}::timestamptz, bound_from)`, unbound_by: actor.apiKeyId })
        .where('master_id', '=', masterId)
        .where('bound_to', 'is', null)
        .executeTakeFirst();
      return { kind: 'removed', released: Number(released.numUpdatedRows) };
    });
  }

  /**
   * Binds every user to the master, or none: each must be an affiliate of the project, not a
   * master, and bound to no other master. One already bound to this master stays as it is.
   */
  async bind(projectId: string, masterId: string, users: readonly UserIdentifier[], actor: MasterActor, now: Date): Promise<BindOutcome> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const found = await trx
          .selectFrom('affiliates')
          .select(['id', 'identifier', 'identifier_type'])
          .where('project_id', '=', projectId)
          .where((eb) =>
            eb.or(users.map((user) => eb.and([eb('identifier_type', '=', user.identifierType), eb('identifier', '=', user.identifier)]))),
          )
          .execute();
        const idOf = new Map(found.map((row) => [userKey(row.identifier_type, row.identifier), row.id]));
        // The master and every sub-affiliate, locked together in id order: no deadlock with another bind or a designation.
        const locked = await lockAffiliates(trx, projectId, [masterId, ...found.map((row) => row.id)]);
        const byId = new Map(locked.map((row) => [row.id, row]));
        if (!byId.get(masterId)?.designation_id) return { kind: 'not_master' };

        const refusals: BindRefusal[] = [];
        const results: Array<{ affiliate: AffiliateRefRecord; bound: boolean }> = [];
        const toBind = new Set<string>();
        users.forEach((user, index) => {
          const id = idOf.get(userKey(user.identifierType, user.identifier));
          const row = id === undefined ? undefined : byId.get(id);
          if (!row) return refusals.push({ index, kind: 'no_affiliate' });
          if (row.designation_id) return refusals.push({ index, kind: 'is_master' });
          if (row.bound_master_id && row.bound_master_id !== masterId)
            return refusals.push({ index, kind: 'already_bound', master: boundMaster(row) });
          const fresh = !row.bound_master_id && !toBind.has(row.id);
          if (fresh) toBind.add(row.id);
          results.push({ affiliate: { id: row.id, user: { identifier: row.identifier, identifierType: row.identifier_type } }, bound: fresh });
          return undefined;
        });
        if (refusals.length > 0) return { kind: 'refused', refusals };
        if (toBind.size > 0) {
          await trx
            .insertInto('sub_affiliate_bindings')
            .values(
              [...toBind].map((affiliateId) => ({
                project_id: projectId,
                designation_id: byId.get(masterId)!.designation_id!,
                master_id: masterId,
                affiliate_id: affiliateId,
                bound_from: now,
                bound_by: actor.apiKeyId,
              })),
            )
            .execute();
        }
        return { kind: 'bound', results };
      });
    } catch (error) {
      // Only a writer that skipped the locks could get here; its binding stands, this request binds nobody.
      if (isUniqueViolation(error, 'sub_affiliate_bindings_one_open')) return { kind: 'refused', refusals: [] };
      throw error;
    }
  }

  /** Closes the user's binding to this master; false when it is not bound to it. */
  async unbind(projectId: string, masterId: string, user: UserIdentifier, actor: MasterActor, now: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('sub_affiliate_bindings as b')
      .set({ bound_to: sql<Date>`greatest(${now}::timestamptz, b.bound_from)`, unbound_by: actor.apiKeyId })
      .from('affiliates as a')
      .whereRef('a.id', '=', 'b.affiliate_id')
      .where('a.project_id', '=', projectId)
      .where('a.identifier_type', '=', user.identifierType)
      .where('a.identifier', '=', user.identifier)
      .where('b.master_id', '=', masterId)
      .where('b.bound_to', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async find(projectId: string, masterId: string): Promise<MasterRecord | undefined> {
    const row = await this.selectMasters(projectId).where('a.id', '=', masterId).executeTakeFirst();
    return row && toMaster(row);
  }

  /** Newest designation first. */
  async list(projectId: string, page: Page): Promise<{ records: MasterRecord[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.selectMasters(projectId).orderBy('d.designated_at', 'desc').orderBy('d.id', 'desc').limit(page.pageSize).offset(page.offset).execute(),
      this.db
        .selectFrom('agency_designations')
        .select((eb) => eb.fn.countAll<bigint>().as('total'))
        .where('project_id', '=', projectId)
        .where('removed_at', 'is', null)
        .executeTakeFirstOrThrow(),
    ]);
    return { records: rows.map(toMaster), total: Number(count.total) };
  }

  /** The spreads of the master's current designation, newest first. */
  async spreadHistory(masterId: string): Promise<SpreadPeriodRecord[]> {
    const rows = await this.db
      .selectFrom('agency_spreads as s')
      .innerJoin('agency_designations as d', 'd.id', 's.designation_id')
      .select(['s.spread_bps', 's.valid_from', 's.valid_to'])
      .where('s.master_id', '=', masterId)
      .where('d.removed_at', 'is', null)
      .orderBy('s.valid_from', 'desc')
      .orderBy('s.id', 'desc')
      .execute();
    return rows.map((row) => ({ spreadBps: row.spread_bps, validFrom: row.valid_from, validTo: row.valid_to }));
  }

  /** For each affiliate: its master now (if bound) and whether it is a master; one query for all. */
  async relationsOf(affiliateIds: readonly string[]): Promise<Map<string, MasterRelation>> {
    const relations = new Map<string, MasterRelation>();
    if (affiliateIds.length === 0) return relations;
    for (const row of await affiliateRelations(this.db, affiliateIds).execute()) {
      relations.set(row.id, { master: row.bound_master_id === null ? null : boundMaster(row), isMaster: row.designation_id !== null });
    }
    return relations;
  }

  private selectMasters(projectId: string) {
    return this.db
      .selectFrom('agency_designations as d')
      .innerJoin('affiliates as a', 'a.id', 'd.affiliate_id')
      .innerJoin('agency_spreads as s', (join) => join.onRef('s.master_id', '=', 'a.id').on('s.valid_to', 'is', null))
      .select((eb) => [
        ...AFFILIATE_SUMMARY_COLUMNS,
        's.spread_bps',
        'd.designated_at',
        eb
          .selectFrom('sub_affiliate_bindings as b')
          .select((inner) => inner.fn.countAll<bigint>().as('n'))
          .whereRef('b.master_id', '=', 'a.id')
          .where('b.bound_to', 'is', null)
          .as('sub_affiliates_count'),
      ])
      .where('d.project_id', '=', projectId)
      .where('d.removed_at', 'is', null);
  }
}

type MasterRow = Awaited<ReturnType<ReturnType<MasterRepository['selectMasters']>['executeTakeFirstOrThrow']>>;

function toMaster(row: MasterRow): MasterRecord {
  return {
    ...toAffiliateSummary(row),
    spreadBps: row.spread_bps,
    subAffiliatesCount: Number(row.sub_affiliates_count ?? 0),
    designatedAt: row.designated_at,
  };
}

const userKey = (identifierType: string, identifier: string) => `${identifierType}:${identifier}`;

async function affiliateRef(trx: Transaction<AgencyDatabase>, id: string): Promise<AffiliateRefRecord> {
  const row = await trx.selectFrom('affiliates').select(['id', 'identifier', 'identifier_type']).where('id', '=', id).executeTakeFirstOrThrow();
  return { id: row.id, user: { identifier: row.identifier, identifierType: row.identifier_type } };
}

function boundMaster(row: AffiliateRelationRow): AffiliateRefRecord {
  return { id: row.bound_master_id!, user: { identifier: row.bound_master_identifier!, identifierType: row.bound_master_identifier_type! } };
}

/**
 * Locks affiliates' rows (in id order, so two requests never wait on each other crosswise) and
 * reads, for each, its open designation and its open binding with that master.
 */
async function lockAffiliates(trx: Transaction<AgencyDatabase>, projectId: string, ids: readonly string[]): Promise<AffiliateRelationRow[]> {
  if (ids.length === 0) return [];
  await lockAffiliatesById(trx, projectId, ids);
  return affiliateRelations(trx, ids).where('a.project_id', '=', projectId).execute();
}

/** Affiliates with their open designation (a master's) and the master of their open binding (a sub-affiliate's). */
function affiliateRelations(db: Kysely<AgencyDatabase>, ids: readonly string[]) {
  return db
    .selectFrom('affiliates as a')
    .leftJoin('agency_designations as d', (join) => join.onRef('d.affiliate_id', '=', 'a.id').on('d.removed_at', 'is', null))
    .leftJoin('sub_affiliate_bindings as b', (join) => join.onRef('b.affiliate_id', '=', 'a.id').on('b.bound_to', 'is', null))
    .leftJoin('affiliates as m', 'm.id', 'b.master_id')
    .select([
      'a.id',
      'a.identifier',
      'a.identifier_type',
      'd.id as designation_id',
      'm.id as bound_master_id',
      'm.identifier as bound_master_identifier',
      'm.identifier_type as bound_master_identifier_type',
    ])
    .where('a.id', 'in', ids);
}

/** The master's open designation, its affiliate row locked (so spread changes and removal run one at a time). */
async function lockDesignation(trx: Transaction<AgencyDatabase>, projectId: string, masterId: string) {
  await lockAffiliatesById(trx, projectId, [masterId]);
  return trx
    .selectFrom('agency_designations')
    .select('id')
    .where('project_id', '=', projectId)
    .where('affiliate_id', '=', masterId)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
}
