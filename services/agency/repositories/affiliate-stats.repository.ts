import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { AgencyDatabase } from '../database';
import { inReadSnapshot } from '../../platform/db/read-snapshot';
import type { AffiliateStatus } from '../domain/vocabulary';
import {
  type AffiliateMetricsRecord,
  COUNTED_CONVERSIONS,
  COUNTED_USERS,
  EMPTY_METRICS,
  type EarningRecord,
  type EarningRow,
  metricsOf,
  toEarningRecord,
} from './affiliate-metrics.repository';

/** One UTC day of an affiliate's conversions (attribution frozen per conversion, as the projection keeps it). */
export interface DailyFiguresRecord {
  /** YYYY-MM-DD (UTC). */
  date: string;
  /** USD decimal strings. */
  volumeUsd: string;
  revenueUsd: string;
  conversions: bigint;
  /** A master's: the volume of the day's conversions of its sub-affiliates while bound to it. */
  referredVolumeUsd: string;
  /** Distinct users with a counted conversion attributed to it in the bucket. */
  referredUsers: bigint;
  /** The volume of the bucket's conversions that had it at levels 2, 3 and 4 of their frozen upline (USD decimal strings). */
  upperLevelVolumesUsd: [string, string, string];
  /** Its affiliate payouts of the day, per currency. */
  earnings: EarningRecord[];
  /** Its agency payouts of the day (as the master of the conversion's affiliate), per currency. */
  agencyEarnings: EarningRecord[];
}

/** Which affiliates a project's totals count (every one when a list is empty). */
export interface TotalsFilter {
  statuses: readonly AffiliateStatus[];
  regions: readonly string[];
  audienceIds: readonly string[];
}

/** A project's affiliates (of a filter) counted by status, and their all-time figures summed. */
export interface AffiliateTotalsRecord {
  affiliates: bigint;
  active: bigint;
  suspended: bigint;
  flagged: bigint;
  regions: bigint;
  volumeUsd: string;
  revenueUsd: string;
  conversions: bigint;
  endUsers: bigint;
  earnings: EarningRecord[];
}

/** One UTC day of clicks on an affiliate's codes (code_clicks: one per code, tracking id and day). */
export interface DailyClicksRecord {
  /** YYYY-MM-DD (UTC). */
  date: string;
  clicks: bigint;
}

export interface StatsRange {
  /** Midnight UTC of the first day. */
  from: Date;
  /** Days in the range, from 1. */
  days: number;
}

/** The buckets of a series: UTC days, ISO weeks (Monday first) or calendar months, each dated by its first day. */
type StatsBucket = 'day' | 'week' | 'month';

/** What a series counts: its buckets, and only the conversions of one name when given. */
export interface SeriesOptions {
  bucket: StatsBucket;
  conversionName?: string;
}

/** The conversions of a range of figures: [from, until) (either side open when unset), of one name when given. */
interface FiguresWindow {
  from?: Date;
  until?: Date;
  conversionName?: string;
}

/** An affiliate's figures of one referral level over a window (level 1: the users it referred itself). */
export interface LevelFiguresRecord {
  level: number;
  /** USD decimal strings, net of reversals. */
  volumeUsd: string;
  revenueUsd: string;
  /** Counted conversions (all but the fully reversed), processed or no_terms. */
  conversions: bigint;
  convertingUsers: bigint;
  /** The payout-eligible part: processed conversions (terms applied). */
  paidVolumeUsd: string;
  paidRevenueUsd: string;
  paidConversions: bigint;
  earnings: EarningRecord[];
}

/** The referral levels the stats answer (docs/claims.md#referral-levels). */
const REFERRAL_LEVELS = [1, 2, 3, 4] as const;

const emptyLevel = (level: number): LevelFiguresRecord => ({
  level,
  volumeUsd: '0',
  revenueUsd: '0',
  conversions: 0n,
  convertingUsers: 0n,
  paidVolumeUsd: '0',
  paidRevenueUsd: '0',
  paidConversions: 0n,
  earnings: [],
});

/** A level's figures as levelOne and upperLevels select them (USD as decimal text, counts as int8 text). */
interface LevelFiguresRow {
  volume_usd: string;
  revenue_usd: string;
  conversions: string;
  users: string;
  paid_volume_usd: string;
  paid_revenue_usd: string;
  paid_conversions: string;
}

function toLevelFigures(level: number, row: LevelFiguresRow, earnings: EarningRecord[]): LevelFiguresRecord {
  return {
    level,
    volumeUsd: row.volume_usd,
    revenueUsd: row.revenue_usd,
    conversions: BigInt(row.conversions),
    convertingUsers: BigInt(row.users),
    paidVolumeUsd: row.paid_volume_usd,
    paidRevenueUsd: row.paid_revenue_usd,
    paidConversions: BigInt(row.paid_conversions),
    earnings,
  };
}

/** A window's conditions on the conversions' moment (`occurredAt`: the facts' or the levels' column) and on the facts' name. */
function windowConditions(occurredAt: RawBuilder<unknown>, window: FiguresWindow): RawBuilder<unknown>[] {
  return [
    ...(window.from === undefined ? [] : [sql`${occurredAt} >= ${window.from}`]),
    ...(window.until === undefined ? [] : [sql`${occurredAt} < ${window.until}`]),
    ...(window.conversionName === undefined ? [] : [sql`f.name = ${window.conversionName}`]),
  ];
}

const DAY_MS = 86_400_000;
/** The first day (YYYY-MM-DD, UTC) of the bucket of a fact's occurred_at. */
const bucketDate = (bucket: StatsBucket) => sql<string>`to_char(date_trunc(${sql.lit(bucket)}, f.occurred_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD')`;

/** The first day of every bucket that meets the range, in order. */
function bucketStarts(range: StatsRange, bucket: StatsBucket): Date[] {
  const last = range.from.getTime() + (range.days - 1) * DAY_MS;
  let start = range.from;
  if (bucket === 'week') start = new Date(start.getTime() - ((start.getUTCDay() + 6) % 7) * DAY_MS);
  if (bucket === 'month') start = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), 1));
  const starts: Date[] = [];
  for (let at = start; at.getTime() <= last;) {
    starts.push(at);
    at =
      bucket === 'month'
        ? new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1))
        : new Date(at.getTime() + (bucket === 'week' ? 7 : 1) * DAY_MS);
  }
  return starts;
}

/**
 * What the affiliate portal shows an affiliate: its totals (the same projection rows as the
 * affiliate list, so both always agree) and its figures per UTC day from the conversion facts, a
 * day without conversions reading zero. Three queries over the facts' (affiliate, occurred_at) and
 * (master, occurred_at) indexes, whatever the range.
 */
export class AffiliateStatsRepository {
  constructor(private readonly db: Kysely<AgencyDatabase>) {}

  /** `work`'s reads of this repository in one snapshot (inReadSnapshot): the parts of one answer agree. */
  inSnapshot<T>(work: (stats: AffiliateStatsRepository) => Promise<T>): Promise<T> {
    return inReadSnapshot(this.db, (snapshot) => work(new AffiliateStatsRepository(snapshot)));
  }

  async totals(projectId: string, affiliateId: string): Promise<AffiliateMetricsRecord> {
    return (await metricsOf(this.db, projectId, [affiliateId])).get(affiliateId) ?? EMPTY_METRICS;
  }

  /**
   * The figures of every bucket (UTC day by default, ISO week or calendar month) that meets the range,
   * oldest first, from the facts of the range only (of one conversion name when given); a bucket is
   * dated by its first day, which may lie before the range.
   */
  async daily(projectId: string, affiliateId: string, range: StatsRange, options: SeriesOptions = { bucket: 'day' }): Promise<DailyFiguresRecord[]> {
    const until = new Date(range.from.getTime() + range.days * DAY_MS);
    const utcDate = bucketDate(options.bucket);
    const name = options.conversionName;
    const named = name === undefined ? sql`` : sql` AND f.name = ${name}`;
    /** The facts of the range whose affiliate (or master) is this one, grouped per bucket. */
    const days = (column: 'f.affiliate_id' | 'f.master_id') => {
      let query = this.db
        .selectFrom('conversion_facts as f')
        .where('f.project_id', '=', projectId)
        .where(column, '=', affiliateId)
        .where('f.occurred_at', '>=', range.from)
        .where('f.occurred_at', '<', until);
      if (name !== undefined) query = query.where('f.name', '=', name);
      return query.groupBy(utcDate);
    };
    const volume = sql<string>`sum(coalesce(f.volume_usd, 0))::text`;
    const [figures, referred, earnings, upper] = await Promise.all([
      days('f.affiliate_id')
        .select([
          utcDate.as('date'),
          volume.as('volume_usd'),
          sql<string>`sum(coalesce(f.revenue_usd, 0))::text`.as('revenue_usd'),
          // A fully reversed conversion keeps its day (at zero figures) but counts as none.
          COUNTED_CONVERSIONS.as('conversions'),
          COUNTED_USERS.as('users'),
        ])
        .execute(),
      days('f.master_id')
        .select([utcDate.as('date'), volume.as('volume_usd')])
        .execute(),
      // Both kinds of payout in one statement: the affiliate's own, and a master's from its sub-affiliates' conversions.
      sql<{
        date: string;
        kind: 'affiliate' | 'agency';
        currency_id: string;
        amount: bigint;
        chain_id: bigint | null;
        address: string | null;
        name: string | null;
        decimals: number | null;
      }>`
        SELECT p.date, p.kind, p.currency_id, p.amount, c.chain_id, c.address, c.name, c.decimals
        FROM (
          SELECT ${utcDate} AS date, 'affiliate' AS kind, f.currency_id, sum(f.affiliate_payout) AS amount
          FROM conversion_facts f
          WHERE f.project_id = ${projectId} AND f.affiliate_id = ${affiliateId} AND f.occurred_at >= ${range.from} AND f.occurred_at < ${until}
            AND f.currency_id IS NOT NULL AND f.affiliate_payout > 0${named}
          GROUP BY 1, f.currency_id
          UNION ALL
          SELECT ${utcDate}, 'agency', f.currency_id, sum(f.agency_payout)
          FROM conversion_facts f
          WHERE f.project_id = ${projectId} AND f.master_id = ${affiliateId} AND f.occurred_at >= ${range.from} AND f.occurred_at < ${until}
            AND f.currency_id IS NOT NULL AND f.agency_payout > 0${named}
          GROUP BY 1, f.currency_id
        ) AS p
        LEFT JOIN metric_currencies c ON c.id = p.currency_id
        ORDER BY p.date, p.kind, c.name, p.currency_id`.execute(this.db),
      // The upper referral levels' volume per bucket (migration 0024's rows by (affiliate_id, level, occurred_at)).
      sql<{ date: string; level: number; volume_usd: string }>`
        SELECT ${utcDate} AS date, l.level, sum(coalesce(f.volume_usd, 0))::text AS volume_usd
        FROM conversion_fact_levels l JOIN conversion_facts f ON f.project_id = l.project_id AND f.conversion_id = l.conversion_id
        WHERE l.affiliate_id = ${affiliateId} AND l.project_id = ${projectId} AND l.occurred_at >= ${range.from} AND l.occurred_at < ${until}${named}
        GROUP BY 1, l.level`.execute(this.db),
    ]);
    const series = new Map<string, DailyFiguresRecord>();
    for (const start of bucketStarts(range, options.bucket)) {
      const date = start.toISOString().slice(0, 10);
      series.set(date, {
        date,
        volumeUsd: '0',
        revenueUsd: '0',
        conversions: 0n,
        referredVolumeUsd: '0',
        referredUsers: 0n,
        upperLevelVolumesUsd: ['0', '0', '0'],
        earnings: [],
        agencyEarnings: [],
      });
    }
    for (const row of figures) {
      Object.assign(series.get(row.date)!, {
        volumeUsd: row.volume_usd,
        revenueUsd: row.revenue_usd,
        conversions: BigInt(row.conversions),
        referredUsers: BigInt(row.users),
      });
    }
    for (const row of referred) series.get(row.date)!.referredVolumeUsd = row.volume_usd;
    for (const row of upper.rows) series.get(row.date)!.upperLevelVolumesUsd[Number(row.level) - 2] = row.volume_usd;
    for (const row of earnings.rows) {
      const day = series.get(row.date)!;
      (row.kind === 'affiliate' ? day.earnings : day.agencyEarnings).push(toEarningRecord(row));
    }
    return [...series.values()];
  }

  /**
   * The affiliate's level-1 figures over a window, from the conversion facts (net of reversals): two
   * statements over the facts' (affiliate, occurred_at) index, whatever the window.
   */
  async levelOne(projectId: string, affiliateId: string, window: FiguresWindow): Promise<LevelFiguresRecord> {
    const where = sql.join(
      [sql`f.project_id = ${projectId}`, sql`f.affiliate_id = ${affiliateId}`, ...windowConditions(sql`f.occurred_at`, window)],
      sql` AND `,
    );
    const paid = sql`f.status = 'processed'`;
    // Raw: FILTERed aggregates over NUMERIC columns in one pass.
    const [figures, earnings] = await Promise.all([
      sql<LevelFiguresRow>`
        SELECT coalesce(sum(f.volume_usd), 0)::text AS volume_usd, coalesce(sum(f.revenue_usd), 0)::text AS revenue_usd,
          ${COUNTED_CONVERSIONS} AS conversions, ${COUNTED_USERS} AS users,
          coalesce(sum(f.volume_usd) FILTER (WHERE ${paid}), 0)::text AS paid_volume_usd,
          coalesce(sum(f.revenue_usd) FILTER (WHERE ${paid}), 0)::text AS paid_revenue_usd,
          count(*) FILTER (WHERE ${paid} AND f.reversed_bps < 10000) AS paid_conversions
        FROM conversion_facts f WHERE ${where}`.execute(this.db),
      sql<EarningRow>`
        SELECT p.currency_id, p.amount, c.chain_id, c.address, c.name, c.decimals
        FROM (
          SELECT f.currency_id, sum(f.affiliate_payout) AS amount FROM conversion_facts f
          WHERE ${where} AND f.currency_id IS NOT NULL AND f.affiliate_payout > 0
          GROUP BY f.currency_id
        ) AS p
        LEFT JOIN metric_currencies c ON c.id = p.currency_id
        ORDER BY c.name, p.currency_id`.execute(this.db),
    ]);
    return toLevelFigures(1, figures.rows[0]!, earnings.rows.map(toEarningRecord));
  }

  /**
   * The affiliate's figures of levels 2..4 over a window (in level order, a level without conversions at
   * zero): the conversions whose frozen upline had it at that level (conversion_fact_levels, migration 0024),
   * with their facts' figures (net of reversals) and what that level was paid. Two statements over the
   * (affiliate_id, level, occurred_at) index, whatever the window.
   */
  async upperLevels(projectId: string, affiliateId: string, window: FiguresWindow): Promise<LevelFiguresRecord[]> {
    const where = sql.join(
      [sql`l.affiliate_id = ${affiliateId}`, sql`l.project_id = ${projectId}`, ...windowConditions(sql`l.occurred_at`, window)],
      sql` AND `,
    );
    const facts = sql`conversion_fact_levels l JOIN conversion_facts f ON f.project_id = l.project_id AND f.conversion_id = l.conversion_id`;
    const paid = sql`f.status = 'processed'`;
    // Raw: FILTERed aggregates over NUMERIC columns per level, as levelOne's.
    const [figures, earnings] = await Promise.all([
      sql<LevelFiguresRow & { level: number }>`
        SELECT l.level, coalesce(sum(f.volume_usd), 0)::text AS volume_usd, coalesce(sum(f.revenue_usd), 0)::text AS revenue_usd,
          count(*) FILTER (WHERE f.reversed_bps < 10000) AS conversions,
          count(DISTINCT (f.identifier_type, f.identifier)) FILTER (WHERE f.reversed_bps < 10000) AS users,
          coalesce(sum(f.volume_usd) FILTER (WHERE ${paid}), 0)::text AS paid_volume_usd,
          coalesce(sum(f.revenue_usd) FILTER (WHERE ${paid}), 0)::text AS paid_revenue_usd,
          count(*) FILTER (WHERE ${paid} AND f.reversed_bps < 10000) AS paid_conversions
        FROM ${facts} WHERE ${where}
        GROUP BY l.level`.execute(this.db),
      sql<EarningRow & { level: number }>`
        SELECT p.level, p.currency_id, p.amount, c.chain_id, c.address, c.name, c.decimals
        FROM (
          SELECT l.level, f.currency_id, sum(l.payout) AS amount FROM ${facts}
          WHERE ${where} AND f.currency_id IS NOT NULL AND l.payout > 0
          GROUP BY l.level, f.currency_id
        ) AS p
        LEFT JOIN metric_currencies c ON c.id = p.currency_id
        ORDER BY p.level, c.name, p.currency_id`.execute(this.db),
    ]);
    return REFERRAL_LEVELS.slice(1).map((level) => {
      const row = figures.rows.find((candidate) => Number(candidate.level) === level);
      const earned = earnings.rows.filter((candidate) => Number(candidate.level) === level).map(toEarningRecord);
      return row ? toLevelFigures(level, row, earned) : { ...emptyLevel(level), earnings: earned };
    });
  }

  /** The users whose first counted conversion attributed to the affiliate lies in [from, until) (either side open when unset). */
  async newUsers(affiliateId: string, window: FiguresWindow): Promise<bigint> {
    let query = this.db
      .selectFrom('referred_user_metrics')
      .select((eb) => eb.fn.countAll<string>().as('users'))
      .where('affiliate_id', '=', affiliateId)
      .where(sql<boolean>`conversions > 0`);
    if (window.from !== undefined) query = query.where('first_conversion_at', '>=', window.from);
    if (window.until !== undefined) query = query.where('first_conversion_at', '<', window.until);
    return BigInt((await query.executeTakeFirstOrThrow()).users);
  }

  /**
   * The project's affiliates kept by the filter, counted by status, with their metrics rows summed
   * (the projection the list reads) and their affiliate payouts per currency: two statements.
   */
  async projectTotals(projectId: string, filter: TotalsFilter): Promise<AffiliateTotalsRecord> {
    const conditions = [
      sql`a.project_id = ${projectId}`,
      ...(filter.statuses.length === 0 ? [] : [sql`a.status = ANY(${[...filter.statuses]}::text[])`]),
      ...(filter.regions.length === 0 ? [] : [sql`a.region = ANY(${[...filter.regions]}::text[])`]),
      ...(filter.audienceIds.length === 0
        ? []
        : [
            sql`EXISTS (SELECT 1 FROM affiliate_filter_entries e WHERE e.affiliate_id = a.id AND e.kind = 'audience'
                  AND e.value = ANY(${[...filter.audienceIds]}::text[]))`,
          ]),
    ];
    const where = sql.join(conditions, sql` AND `);
    // Raw: FILTERed counts and sums over the affiliates and their metrics rows in one pass.
    const [totals, earnings] = await Promise.all([
      sql<{
        affiliates: string;
        active: string;
        suspended: string;
        flagged: string;
        regions: string;
        volume_usd: string;
        revenue_usd: string;
        conversions: string;
        end_users: string;
      }>`
        SELECT count(*) AS affiliates, count(*) FILTER (WHERE a.status = 'active') AS active,
          count(*) FILTER (WHERE a.status = 'suspended') AS suspended, count(*) FILTER (WHERE a.status = 'flagged') AS flagged,
          count(DISTINCT a.region) AS regions, coalesce(sum(m.volume_usd), 0)::text AS volume_usd,
          coalesce(sum(m.revenue_usd), 0)::text AS revenue_usd, coalesce(sum(m.conversions), 0) AS conversions,
          coalesce(sum(m.end_users), 0) AS end_users
        FROM affiliates a LEFT JOIN affiliate_metrics m ON m.affiliate_id = a.id
        WHERE ${where}`.execute(this.db),
      sql<EarningRow>`
        SELECT p.currency_id, p.amount, c.chain_id, c.address, c.name, c.decimals
        FROM (
          SELECT e.currency_id, sum(e.amount) AS amount FROM affiliate_earnings e JOIN affiliates a ON a.id = e.affiliate_id
          WHERE ${where} AND e.kind = 'affiliate' AND e.project_id = ${projectId}
          GROUP BY e.currency_id
        ) AS p
        LEFT JOIN metric_currencies c ON c.id = p.currency_id
        ORDER BY c.name, p.currency_id`.execute(this.db),
    ]);
    const row = totals.rows[0]!;
    return {
      affiliates: BigInt(row.affiliates),
      active: BigInt(row.active),
      suspended: BigInt(row.suspended),
      flagged: BigInt(row.flagged),
      regions: BigInt(row.regions),
      volumeUsd: row.volume_usd,
      revenueUsd: row.revenue_usd,
      conversions: BigInt(row.conversions),
      endUsers: BigInt(row.end_users),
      earnings: earnings.rows.map(toEarningRecord),
    };
  }

  /**
   * The clicks of the affiliate's codes (or of its one code `code`, any letter case) per UTC day of the
   * range, every day listed (zero without clicks); undefined when `code` is given and the affiliate
   * holds no such code. One range of code_clicks_code_day_idx per code (migration 0023).
   */
  async dailyClicks(projectId: string, affiliateId: string, code: string | undefined, range: StatsRange): Promise<DailyClicksRecord[] | undefined> {
    let codes = this.db
      .selectFrom('affiliate_codes')
      .select(sql<string>`lower(code)`.as('code'))
      .where('affiliate_id', '=', affiliateId);
    if (code !== undefined) codes = codes.where(sql`lower(code)`, '=', code.toLowerCase());
    const held = (await codes.execute()).map((row) => row.code);
    if (code !== undefined && held.length === 0) return undefined;
    const last = new Date(range.from.getTime() + (range.days - 1) * DAY_MS).toISOString().slice(0, 10);
    const first = range.from.toISOString().slice(0, 10);
    const rows =
      held.length === 0
        ? []
        : await this.db
            .selectFrom('code_clicks')
            .select([sql<string>`to_char(day, 'YYYY-MM-DD')`.as('date'), (eb) => eb.fn.countAll<string>().as('clicks')])
            .where('project_id', '=', projectId)
            .where('code', 'in', held)
            .where('day', '>=', first)
            .where('day', '<=', last)
            .groupBy('day')
            .execute();
    const counts = new Map(rows.map((row) => [row.date, BigInt(row.clicks)]));
    return Array.from({ length: range.days }, (_, day) => {
      const date = new Date(range.from.getTime() + day * DAY_MS).toISOString().slice(0, 10);
      return { date, clicks: counts.get(date) ?? 0n };
    });
  }
}
