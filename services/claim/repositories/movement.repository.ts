import { type Kysely, type Selectable, type SelectQueryBuilder, sql } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import type { Page } from '../../rules/pagination';
import type { ClaimDatabase, ConversionTable } from '../database';
import type { Attribution, Eligibility, SideEligibility, UplineAffiliate } from '../domain/payouts';
import type {
  CapKind,
  ClaimCheckStatus,
  ConversionStatus,
  CurrencyFamily,
  CurrencyType,
  MovementKind,
  MovementStatus,
  PendingReason,
} from '../domain/vocabulary';
import { reversedAmount } from './reversed-amount';

export interface CurrencySummary {
  id: string;
  /** Null for a point currency (no chain, no address), and only then. */
  chainId: bigint | null;
  address: string | null;
  name: string;
  decimals: number;
  type: CurrencyType;
}

/** A statement's columns of the currency joined as `cur`, read back by toCurrency. */
export const CURRENCY_COLUMNS = [
  'cur.id as currency_id',
  'cur.chain_id',
  'cur.address',
  'cur.name as currency_name',
  'cur.decimals',
  'cur.type as currency_type',
] as const;

export type CurrencyRow = {
  currency_id: string;
  chain_id: bigint | null;
  address: string | null;
  currency_name: string;
  decimals: number;
  currency_type: CurrencySummary['type'];
};

export function toCurrency(row: CurrencyRow): CurrencySummary {
  return {
    id: row.currency_id,
    chainId: row.chain_id,
    address: row.address,
    name: row.currency_name,
    decimals: row.decimals,
    type: row.currency_type,
  };
}

export interface MovementRecord {
  kind: MovementKind;
  beneficiary: UserIdentifier;
  currency: CurrencySummary;
  /** What it was paid when written; never changes. */
  amount: bigint;
  /** What reversals took back from it (base units; 0 when none): its net is amount − reversed. */
  reversed: bigint;
  conversionId: string;
  conversionName: string;
  createdAt: Date;
  /** The status of the check it is in; null while it is in none (pending or declined). */
  claimCheckStatus: ClaimCheckStatus | null;
  status: MovementStatus;
  /** Why it waits; null unless pending. */
  pendingReason: PendingReason | null;
  /** When it becomes (or became) available: processing time + the terms' hold. */
  availableAt: Date;
  decision: { at: Date; by: string | null; declineReason: string | null } | null;
  /** What the terms' caps cut from it (never paid; `amount` is what is left), by the cap that cut it first; null: uncapped. */
  capped: { amount: bigint; by: CapKind } | null;
  /** An end_user_payout that is the referring affiliate's rebate, taken from its affiliate_payout of the same conversion. */
  rebate: boolean;
  /** An affiliate_payout's referral level (1 the referring affiliate, 2..4 its upline); 1 on other kinds. */
  level: number;
}

export interface ConversionRecord {
  id: string;
  name: string;
  user: UserIdentifier;
  status: ConversionStatus;
  occurredAt: Date;
  receivedAt: Date;
  processedAt: Date | null;
  volumeUsd: string | null;
  revenueUsd: string | null;
  rewardBase: bigint | null;
  referralCode: string | null;
  attribution: Attribution | null;
  /** What the terms' allowlists decided, frozen when it was paid (per side null: no allowlist checked). */
  eligibility: Eligibility;
  failureReason: string | null;
  movements: MovementRecord[];
}

/** A window of time: at or after `from`, before `to` (each left out: unbounded). */
export interface TimeRange {
  from?: Date | undefined;
  to?: Date | undefined;
}

/** What a user earned under one conversion name, on one side, in one currency (net of reversals). */
export interface PayoutSumRecord {
  conversionName: string;
  isReferrer: boolean;
  currency: CurrencySummary;
  total: bigint;
}

/** One user an affiliate referred, as its paid conversions show it. */
export interface ReferredUserRecord {
  user: UserIdentifier;
  /** USD decimal string. */
  volumeUsd: string;
  earnings: Array<{ currency: CurrencySummary; amount: bigint }>;
  firstConversionAt: Date;
  referralCode: string | null;
  rebateBps: number;
}

/** What a list of conversions is narrowed to; an unset field does not narrow it. */
export interface ConversionFilter {
  status?: ConversionStatus | undefined;
  name?: string | undefined;
  user?: UserIdentifier | undefined;
}

/** Every column but the USD figures, which are read as text (a fractional NUMERIC has no bigint). */
const CONVERSION_COLUMNS = [
  'id',
  'name',
  'identifier_type',
  'identifier',
  'status',
  'occurred_at',
  'received_at',
  'processed_at',
  'reward_base',
  'referral_code',
  'failure_reason',
  'affiliate_id',
  'affiliate_identifier_type',
  'affiliate_identifier',
  'master_id',
  'master_identifier_type',
  'master_identifier',
  'master_spread_bps',
  'tier_id',
  'user_rebate_rate_bps',
  'end_user_allowlist_audience_id',
  'end_user_eligible',
  'affiliate_allowlist_audience_id',
  'affiliate_eligible',
] as const satisfies ReadonlyArray<keyof ConversionTable>;

/** Reads of the ledger: conversions with their movements (one, or a project's page), and a user's movements. */
export class MovementRepository {
  constructor(private readonly db: Kysely<ClaimDatabase>) {}

  async conversion(projectId: string, id: string): Promise<ConversionRecord | undefined> {
    const row = await this.conversions(projectId).where('id', '=', id).executeTakeFirst();
    if (!row) return undefined;
    const movements = await this.movements().where('m.project_id', '=', projectId).where('m.conversion_id', '=', id).orderBy('m.id').execute();
    return toConversion(row, movements.map(toMovement));
  }

  /**
   * A page of the project's conversions, newest received first (ties by id, descending: the index
   * conversions_project_recent_idx), each with its movements, read for the whole page at once.
   */
  async list(projectId: string, filter: ConversionFilter, page: Page): Promise<{ records: ConversionRecord[]; total: number }> {
    const filtered = <Q extends SelectQueryBuilder<ClaimDatabase, 'conversions', object>>(query: Q): Q => {
      let narrowed = query;
      if (filter.status !== undefined) narrowed = narrowed.where('status', '=', filter.status) as Q;
      if (filter.name !== undefined) narrowed = narrowed.where('name', '=', filter.name) as Q;
      if (filter.user !== undefined) {
        narrowed = narrowed.where('identifier', '=', filter.user.identifier).where('identifier_type', '=', filter.user.identifierType) as Q;
      }
      return narrowed;
    };
    const [rows, count] = await Promise.all([
      filtered(this.conversions(projectId)).orderBy('received_at', 'desc').orderBy('id', 'desc').limit(page.pageSize).offset(page.offset).execute(),
      filtered(this.db.selectFrom('conversions').where('project_id', '=', projectId))
        .select((eb) => eb.fn.countAll<bigint>().as('total'))
        .executeTakeFirstOrThrow(),
    ]);
    const ids = rows.map((row) => row.id);
    const movements =
      ids.length === 0
        ? []
        : await this.movements().where('m.project_id', '=', projectId).where('m.conversion_id', 'in', ids).orderBy('m.id').execute();
    const byConversion = new Map<string, MovementRecord[]>();
    for (const movement of movements) {
      const list = byConversion.get(movement.conversion_id) ?? [];
      list.push(toMovement(movement));
      byConversion.set(movement.conversion_id, list);
    }
    return { records: rows.map((row) => toConversion(row, byConversion.get(row.id) ?? [])), total: Number(count.total) };
  }

  private conversions(projectId: string) {
    return (
      this.db
        .selectFrom('conversions')
        .select(CONVERSION_COLUMNS)
        // Text: a fractional NUMERIC has no bigint (services/platform/db/type-parsers.ts).
        .select((eb) => [
          eb.cast<string | null>('volume_usd', 'text').as('volume_text'),
          eb.cast<string | null>('revenue_usd', 'text').as('revenue_text'),
          // The frozen upline (docs/claims.md#referral-levels), ascending; empty for most conversions.
          sql<FrozenUplineRow[]>`(
            SELECT coalesce(jsonb_agg(jsonb_build_object('level', u.level, 'id', u.affiliate_id, 'identifier_type', u.identifier_type,
                                                         'identifier', u.identifier) ORDER BY u.level), '[]'::jsonb)
            FROM conversion_upline u WHERE u.project_id = conversions.project_id AND u.conversion_id = conversions.id)`.as('upline'),
        ])
        .where('project_id', '=', projectId)
    );
  }

  /** The movements of these conversions of the project, per conversion id (in the ledger's order). */
  async ofConversions(projectId: string, ids: readonly string[]): Promise<Map<string, MovementRecord[]>> {
    const byConversion = new Map<string, MovementRecord[]>();
    if (ids.length === 0) return byConversion;
    const rows = await this.movements().where('m.project_id', '=', projectId).where('m.conversion_id', 'in', ids).orderBy('m.id').execute();
    for (const row of rows) {
      const list = byConversion.get(row.conversion_id) ?? [];
      list.push(toMovement(row));
      byConversion.set(row.conversion_id, list);
    }
    return byConversion;
  }

  /** A user's movements (as beneficiary), newest first; with `range`, only those written within it. */
  async ofUser(
    projectId: string,
    user: UserIdentifier,
    status: MovementStatus | undefined,
    page: Page,
    range: TimeRange = {},
    family?: CurrencyFamily,
  ): Promise<{ records: MovementRecord[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.movements()
        .where('m.project_id', '=', projectId)
        .where('m.identifier', '=', user.identifier)
        .where('m.identifier_type', '=', user.identifierType)
        .$if(family !== undefined, (query) => query.where(inFamily(projectId, 'm.currency_id', family!)))
        .$if(status !== undefined, (query) => query.where('m.status', '=', status!))
        .$if(range.from !== undefined, (query) => query.where('m.created_at', '>=', range.from!))
        .$if(range.to !== undefined, (query) => query.where('m.created_at', '<', range.to!))
        .orderBy('m.created_at', 'desc')
        .orderBy('m.id', 'desc')
        .limit(page.pageSize)
        .offset(page.offset)
        .execute(),
      this.db
        .selectFrom('movements')
        .select((eb) => eb.fn.countAll<bigint>().as('total'))
        .where('project_id', '=', projectId)
        .where('identifier', '=', user.identifier)
        .where('identifier_type', '=', user.identifierType)
        .$if(family !== undefined, (query) => query.where(inFamily(projectId, 'currency_id', family!)))
        .$if(status !== undefined, (query) => query.where('status', '=', status!))
        .$if(range.from !== undefined, (query) => query.where('created_at', '>=', range.from!))
        .$if(range.to !== undefined, (query) => query.where('created_at', '<', range.to!))
        .executeTakeFirstOrThrow(),
    ]);
    return { records: rows.map(toMovement), total: Number(count.total) };
  }

  /**
   * What the user earned (as beneficiary) per conversion name, side and currency, net of reversals,
   * declined movements left out, over the movements written within `range` (the index
   * movements_user_recent_idx); ordered by conversion name, the converting user's side first, then currency.
   */
  async sumsOfUser(
    projectId: string,
    user: UserIdentifier,
    range: TimeRange,
    page: Page,
    family?: CurrencyFamily,
  ): Promise<{ records: PayoutSumRecord[]; total: number }> {
    const grouped = this.db
      .selectFrom('movements as m')
      .innerJoin('conversions as c', (join) => join.onRef('c.project_id', '=', 'm.project_id').onRef('c.id', '=', 'm.conversion_id'))
      .where('m.project_id', '=', projectId)
      .where('m.identifier', '=', user.identifier)
      .where('m.identifier_type', '=', user.identifierType)
      .$if(family !== undefined, (query) => query.where(inFamily(projectId, 'm.currency_id', family!)))
      .where('m.status', '<>', 'declined')
      .$if(range.from !== undefined, (query) => query.where('m.created_at', '>=', range.from!))
      .$if(range.to !== undefined, (query) => query.where('m.created_at', '<', range.to!))
      .select([
        'c.name as conversion_name',
        'm.currency_id',
        sql<boolean>`m.kind <> 'end_user_payout'`.as('is_referrer'),
        sql<string>`sum(m.amount - ${reversedAmount('m')})::text`.as('total'),
      ])
      .groupBy(['c.name', 'm.currency_id'])
      .groupBy(sql`m.kind <> 'end_user_payout'`);
    const [rows, count] = await Promise.all([
      this.db
        .selectFrom(grouped.as('g'))
        .innerJoin('currencies as cur', 'cur.id', 'g.currency_id')
        .select(['g.conversion_name', 'g.is_referrer', 'g.total', 'cur.id', 'cur.chain_id', 'cur.address', 'cur.name', 'cur.decimals', 'cur.type'])
        .orderBy('g.conversion_name')
        .orderBy('g.is_referrer')
        .orderBy('cur.id')
        .limit(page.pageSize)
        .offset(page.offset)
        .execute(),
      this.db
        .selectFrom(grouped.as('g'))
        .select((eb) => eb.fn.countAll<bigint>().as('total'))
        .executeTakeFirstOrThrow(),
    ]);
    return {
      records: rows.map((row) => ({
        conversionName: row.conversion_name,
        isReferrer: row.is_referrer,
        currency: { id: row.id, chainId: row.chain_id, address: row.address, name: row.name, decimals: row.decimals, type: row.type },
        total: BigInt(row.total),
      })),
      total: Number(count.total),
    };
  }

  /**
   * Per user the affiliate's paid conversions (processed or no_terms) were attributed to (the index
   * conversions_affiliate_time_idx, migration 0016): the volume of its conversions that occurred within
   * `range`, and the affiliate's affiliate_payout movements of them (net of reversals, declined ones left
   * out) per currency; its first conversion, latest code and latest rebate rate over all time. At most
   * `limit` users, by identifier.
   */
  async referredUsers(projectId: string, affiliate: UserIdentifier, range: TimeRange, limit: number): Promise<ReferredUserRecord[]> {
    const inRange = (column: string) =>
      sql<boolean>`(${range.from === undefined ? sql`true` : sql`${sql.ref(column)} >= ${range.from}`} AND ${
        range.to === undefined ? sql`true` : sql`${sql.ref(column)} < ${range.to}`
      })`;
    const users = await this.db
      .selectFrom('conversions as c')
      .where('c.project_id', '=', projectId)
      .where('c.affiliate_identifier_type', '=', affiliate.identifierType)
      .where('c.affiliate_identifier', '=', affiliate.identifier)
      .where('c.status', 'in', ['processed', 'no_terms'])
      .select([
        'c.identifier_type',
        'c.identifier',
        sql<Date>`min(c.occurred_at)`.as('first_at'),
        sql<string>`coalesce(sum(c.volume_usd) FILTER (WHERE ${inRange('c.occurred_at')}), 0)::text`.as('volume'),
        sql<string | null>`(array_agg(c.referral_code ORDER BY c.occurred_at DESC, c.id DESC))[1]`.as('code'),
        sql<number | null>`(array_agg(c.user_rebate_rate_bps ORDER BY c.occurred_at DESC, c.id DESC))[1]`.as('rebate_bps'),
      ])
      .groupBy(['c.identifier_type', 'c.identifier'])
      .orderBy('c.identifier')
      .orderBy('c.identifier_type')
      .limit(limit)
      .execute();
    if (users.length === 0) return [];
    const earnings = await this.db
      .selectFrom('movements as m')
      .innerJoin('conversions as c', (join) => join.onRef('c.project_id', '=', 'm.project_id').onRef('c.id', '=', 'm.conversion_id'))
      .innerJoin('currencies as cur', 'cur.id', 'm.currency_id')
      .where('m.project_id', '=', projectId)
      .where('m.identifier', '=', affiliate.identifier)
      .where('m.identifier_type', '=', affiliate.identifierType)
      .where('m.kind', '=', 'affiliate_payout')
      .where('m.status', '<>', 'declined')
      .where('c.affiliate_identifier', '=', affiliate.identifier)
      .where('c.affiliate_identifier_type', '=', affiliate.identifierType)
      .where(inRange('c.occurred_at'))
      .select([
        'c.identifier_type',
        'c.identifier',
        'cur.id',
        'cur.chain_id',
        'cur.address',
        'cur.name',
        'cur.decimals',
        'cur.type',
        sql<string>`sum(m.amount - ${reversedAmount('m')})::text`.as('total'),
      ])
      .groupBy(['c.identifier_type', 'c.identifier', 'cur.id'])
      .orderBy('cur.id')
      .execute();
    const byUser = new Map<string, ReferredUserRecord['earnings']>();
    for (const row of earnings) {
      const key = `${row.identifier_type}:${row.identifier}`;
      const list = byUser.get(key) ?? [];
      list.push({
        currency: { id: row.id, chainId: row.chain_id, address: row.address, name: row.name, decimals: row.decimals, type: row.type },
        amount: BigInt(row.total),
      });
      byUser.set(key, list);
    }
    return users.map((row) => ({
      user: { identifier: row.identifier, identifierType: row.identifier_type },
      volumeUsd: row.volume,
      earnings: byUser.get(`${row.identifier_type}:${row.identifier}`) ?? [],
      firstConversionAt: row.first_at,
      referralCode: row.code,
      rebateBps: row.rebate_bps ?? 0,
    }));
  }

  private movements() {
    return this.db
      .selectFrom('movements as m')
      .innerJoin('currencies as cur', 'cur.id', 'm.currency_id')
      .innerJoin('conversions as c', (join) => join.onRef('c.project_id', '=', 'm.project_id').onRef('c.id', '=', 'm.conversion_id'))
      .leftJoin('claim_checks as cc', 'cc.id', 'm.claim_check_id')
      .select([
        'm.kind',
        'm.status',
        'm.pending_reason',
        'm.available_at',
        'm.decided_at',
        'm.decided_by',
        'm.decline_reason',
        'm.capped_amount',
        'm.capped_by',
        'm.rebate',
        'm.level',
        'm.identifier_type',
        'm.identifier',
        'm.amount',
        'm.conversion_id',
        'm.created_at',
        'c.name as conversion_name',
        'cc.status as claim_check_status',
        ...CURRENCY_COLUMNS,
        reversedAmount('m').as('reversed'),
      ]);
  }
}

type ConversionRow = Awaited<ReturnType<ReturnType<MovementRepository['conversions']>['execute']>>[number];

function toConversion(row: ConversionRow, movements: MovementRecord[]): ConversionRecord {
  return {
    id: row.id,
    name: row.name,
    user: { identifier: row.identifier, identifierType: row.identifier_type },
    status: row.status,
    occurredAt: row.occurred_at,
    receivedAt: row.received_at,
    processedAt: row.processed_at,
    volumeUsd: row.volume_text,
    revenueUsd: row.revenue_text,
    rewardBase: row.reward_base,
    referralCode: row.referral_code,
    attribution: attributionOf(row, row.upline),
    eligibility: {
      endUser: sideOf(row.end_user_allowlist_audience_id, row.end_user_eligible),
      affiliate: sideOf(row.affiliate_allowlist_audience_id, row.affiliate_eligible),
    },
    failureReason: row.failure_reason,
    movements,
  };
}

type MovementRow = Awaited<ReturnType<ReturnType<MovementRepository['movements']>['execute']>>[number];

function toMovement(row: MovementRow): MovementRecord {
  return {
    kind: row.kind,
    beneficiary: { identifier: row.identifier, identifierType: row.identifier_type },
    currency: toCurrency(row),
    amount: row.amount,
    reversed: BigInt(row.reversed),
    conversionId: row.conversion_id,
    conversionName: row.conversion_name,
    createdAt: row.created_at,
    claimCheckStatus: row.claim_check_status,
    status: row.status,
    pendingReason: row.pending_reason,
    // Movements written before statuses existed were available when written.
    availableAt: row.available_at ?? row.created_at,
    decision: row.decided_at === null ? null : { at: row.decided_at, by: row.decided_by, declineReason: row.decline_reason },
    capped: row.capped_by === null ? null : { amount: row.capped_amount, by: row.capped_by },
    rebate: row.rebate,
    level: row.level,
  };
}

function sideOf(allowlistAudienceId: string | null, eligible: boolean | null): SideEligibility | null {
  return allowlistAudienceId === null || eligible === null ? null : { allowlistAudienceId, eligible };
}

/** One level of a conversion's frozen upline as its conversion's query reads it (jsonb). */
interface FrozenUplineRow {
  level: UplineAffiliate['level'];
  id: string;
  identifier_type: UplineAffiliate['affiliate']['user']['identifierType'];
  identifier: string;
}

function attributionOf(row: Pick<Selectable<ConversionTable>, (typeof CONVERSION_COLUMNS)[number]>, upline: FrozenUplineRow[]): Attribution | null {
  if (row.affiliate_id === null || row.affiliate_identifier === null || row.affiliate_identifier_type === null) return null;
  const master =
    row.master_id !== null && row.master_identifier !== null && row.master_identifier_type !== null && row.master_spread_bps !== null
      ? {
          affiliate: { id: row.master_id, user: { identifier: row.master_identifier, identifierType: row.master_identifier_type } },
          spreadBps: row.master_spread_bps,
        }
      : null;
  return {
    affiliate: { id: row.affiliate_id, user: { identifier: row.affiliate_identifier, identifierType: row.affiliate_identifier_type } },
    master,
    upline: upline.map((level) => ({
      level: level.level,
      affiliate: { id: level.id, user: { identifier: level.identifier, identifierType: level.identifier_type } },
    })),
    tierId: row.tier_id,
    // Conversions paid before rebates existed gave none.
    rebateBps: row.user_rebate_rate_bps ?? 0,
  };
}

/**
 * `column` (a movement's currency) is one of the project's currencies of `family`: the point currency
 * (points) or the others (chain). A subquery of the project's few currencies, not a join: the user's
 * movements stay a range of their index.
 */
function inFamily(projectId: string, column: 'm.currency_id' | 'currency_id', family: CurrencyFamily) {
  const points = sql`(SELECT cur.id FROM currencies cur WHERE cur.project_id = ${projectId} AND cur.type = 'point')`;
  return family === 'point' ? sql<boolean>`${sql.ref(column)} IN ${points}` : sql<boolean>`${sql.ref(column)} NOT IN ${points}`;
}
