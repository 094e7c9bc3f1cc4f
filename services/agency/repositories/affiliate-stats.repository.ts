import { type Kysely, sql } from 'kysely';
import type { AgencyDatabase } from '../database';
import {
  type AffiliateMetricsRecord,
  COUNTED_CONVERSIONS,
  EMPTY_METRICS,
  type EarningRecord,
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
  /** Its affiliate payouts of the day, per currency. */
  earnings: EarningRecord[];
  /** Its agency payouts of the day (as the master of the conversion's affiliate), per currency. */
  agencyEarnings: EarningRecord[];
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

const DAY_MS = 86_400_000;
const utcDate = sql<string>`to_char(f.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;

/**
 * What the affiliate portal shows an affiliate: its totals (the same projection rows as the
 * affiliate list, so both always agree) and its figures per UTC day from the conversion facts, a
 * day without conversions reading zero. Three queries over the facts' (affiliate, occurred_at) and
 * (master, occurred_at) indexes, whatever the range.
 */
export class AffiliateStatsRepository {
  constructor(private readonly db: Kysely<AgencyDatabase>) {}

  async totals(projectId: string, affiliateId: string): Promise<AffiliateMetricsRecord> {
    return (await metricsOf(this.db, projectId, [affiliateId])).get(affiliateId) ?? EMPTY_METRICS;
  }

  async daily(projectId: string, affiliateId: string, range: StatsRange): Promise<DailyFiguresRecord[]> {
    const until = new Date(range.from.getTime() + range.days * DAY_MS);
    /** The facts of the range whose affiliate (or master) is this one, grouped per UTC day. */
    const days = (column: 'f.affiliate_id' | 'f.master_id') =>
      this.db
        .selectFrom('conversion_facts as f')
        .where('f.project_id', '=', projectId)
        .where(column, '=', affiliateId)
        .where('f.occurred_at', '>=', range.from)
        .where('f.occurred_at', '<', until)
        .groupBy(utcDate);
    const volume = sql<string>`sum(coalesce(f.volume_usd, 0))::text`;
    const [figures, referred, earnings] = await Promise.all([
      days('f.affiliate_id')
        .select([
          utcDate.as('date'),
          volume.as('volume_usd'),
          sql<string>`sum(coalesce(f.revenue_usd, 0))::text`.as('revenue_usd'),
          // A fully reversed conversion keeps its day (at zero figures) but counts as none.
          COUNTED_CONVERSIONS.as('conversions'),
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
            AND f.currency_id IS NOT NULL AND f.affiliate_payout > 0
          GROUP BY 1, f.currency_id
          UNION ALL
          SELECT ${utcDate}, 'agency', f.currency_id, sum(f.agency_payout)
          FROM conversion_facts f
          WHERE f.project_id = ${projectId} AND f.master_id = ${affiliateId} AND f.occurred_at >= ${range.from} AND f.occurred_at < ${until}
            AND f.currency_id IS NOT NULL AND f.agency_payout > 0
          GROUP BY 1, f.currency_id
        ) AS p
        LEFT JOIN metric_currencies c ON c.id = p.currency_id
        ORDER BY p.date, p.kind, c.name, p.currency_id`.execute(this.db),
    ]);
    const series = new Map<string, DailyFiguresRecord>();
    for (let day = 0; day < range.days; day++) {
      const date = new Date(range.from.getTime() + day * DAY_MS).toISOString().slice(0, 10);
      series.set(date, { date, volumeUsd: '0', revenueUsd: '0', conversions: 0n, referredVolumeUsd: '0', earnings: [], agencyEarnings: [] });
    }
    for (const row of figures) {
      Object.assign(series.get(row.date)!, { volumeUsd: row.volume_usd, revenueUsd: row.revenue_usd, conversions: BigInt(row.conversions) });
    }
    for (const row of referred) series.get(row.date)!.referredVolumeUsd = row.volume_usd;
    for (const row of earnings.rows) {
      const day = series.get(row.date)!;
      (row.kind === 'affiliate' ? day.earnings : day.agencyEarnings).push(toEarningRecord(row));
    }
    return [...series.values()];
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
