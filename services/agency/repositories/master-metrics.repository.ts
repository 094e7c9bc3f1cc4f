import { type Kysely, sql } from 'kysely';
import type { Page } from '../../rules/pagination';
import type { AgencyDatabase } from '../database';
import type { SortOrder, SubAffiliateSort } from '../domain/vocabulary';
import { type AffiliateMetricsRecord, type EarningRecord, EMPTY_METRICS, metricsOf, toEarningRecord } from './affiliate-metrics.repository';
import { AFFILIATE_SUMMARY_COLUMNS, type AffiliateSummaryRecord, toAffiliateSummary } from './affiliate-record';

export interface SubAffiliateRecord extends AffiliateSummaryRecord {
  /** Its latest binding to this master: [boundAt, unboundAt). */
  boundAt: Date;
  unboundAt: Date | null;
  bound: boolean;
  /** What it brought this master while bound (the conversions' frozen master): USD, count. */
  referredVolumeUsd: string;
  referredConversions: bigint;
  /** Its own figures as an affiliate. */
  volumeUsd: string;
  revenueUsd: string;
  conversions: bigint;
  earnings: EarningRecord[];
  /** What this master earned (agency_payout) from its conversions. */
  agencyEarnings: EarningRecord[];
}

export interface SubAffiliateQuery {
  /** Only those bound now (true) or only former ones (false); both when undefined. */
  bound: boolean | undefined;
  sort: SubAffiliateSort;
  order: SortOrder | undefined;
}

/** The sort's own direction when the caller names none: figures highest first, bindings newest first, names A to Z. */
const DEFAULT_ORDER: Record<SubAffiliateSort, SortOrder> = {
  referred_volume: 'desc',
  referred_conversions: 'desc',
  volume_usd: 'desc',
  revenue_usd: 'desc',
  conversions: 'desc',
  bound_at: 'desc',
  name: 'asc',
};

/**
 * Masters' figures from the affiliate metrics projection (migration 0005). A master's sub-affiliates, former ones included (one row per affiliate ever bound to it, with its
 * latest binding): the volume each brought this master while bound is kept per (master, affiliate)
 * by the metrics projection, so the sum over this list is the master's referred_volume_usd at any
 * moment, before and after an unbinding.
 */
export class MasterMetricsRepository {
  constructor(private readonly db: Kysely<AgencyDatabase>) {}

  /** The figures of these affiliates (masters: referred_volume_usd, agency earnings), two queries for all. */
  async figuresOf(projectId: string, affiliateIds: readonly string[]): Promise<Map<string, AffiliateMetricsRecord>> {
    return metricsOf(this.db, projectId, affiliateIds);
  }

  async subAffiliates(
    projectId: string,
    masterId: string,
    query: SubAffiliateQuery,
    page: Page,
  ): Promise<{ records: SubAffiliateRecord[]; total: number }> {
    const latest = this.db
      .selectFrom('sub_affiliate_bindings as b')
      .distinctOn('b.affiliate_id')
      .select(['b.affiliate_id', 'b.id as binding_id', 'b.bound_from', 'b.bound_to'])
      .where('b.master_id', '=', masterId)
      .orderBy('b.affiliate_id')
      .orderBy('b.bound_from', 'desc')
      .orderBy('b.id', 'desc');
    let base = this.db
      .selectFrom(latest.as('l'))
      .innerJoin('affiliates as a', 'a.id', 'l.affiliate_id')
      .leftJoin('affiliate_metrics as am', 'am.affiliate_id', 'l.affiliate_id')
      .leftJoin('sub_affiliate_metrics as sm', (join) => join.onRef('sm.affiliate_id', '=', 'l.affiliate_id').on('sm.master_id', '=', masterId));
    if (query.bound !== undefined) base = base.where('l.bound_to', query.bound ? 'is' : 'is not', null);

    const direction = query.order ?? DEFAULT_ORDER[query.sort];
    const sortKey = {
      referred_volume: sql`coalesce(sm.volume_usd, 0)`,
      referred_conversions: sql`coalesce(sm.conversions, 0)`,
      volume_usd: sql`coalesce(am.volume_usd, 0)`,
      revenue_usd: sql`coalesce(am.revenue_usd, 0)`,
      conversions: sql`coalesce(am.conversions, 0)`,
      bound_at: sql`l.bound_from`,
      name: sql`lower(a.name)`,
    }[query.sort];
    const rows = await base
      .select((eb) => [
        ...AFFILIATE_SUMMARY_COLUMNS,
        'l.bound_from',
        'l.bound_to',
        eb.cast<string>(eb.fn.coalesce('sm.volume_usd', sql.lit(0)), 'text').as('referred_volume_usd'),
        eb.fn.coalesce('sm.conversions', sql<bigint>`0::int8`).as('referred_conversions'),
      ])
      .orderBy(sortKey, direction)
      // Ties in one stable order, so pages neither repeat nor skip a row.
      .orderBy('l.bound_from', 'desc')
      .orderBy('l.binding_id', 'desc')
      .limit(page.pageSize)
      .offset(page.offset)
      .execute();
    const [count, own, agency] = await Promise.all([
      base.select((eb) => eb.fn.countAll<bigint>().as('total')).executeTakeFirstOrThrow(),
      metricsOf(
        this.db,
        projectId,
        rows.map((row) => row.id),
      ),
      this.agencyEarningsBySub(
        projectId,
        masterId,
        rows.map((row) => row.id),
      ),
    ]);
    return {
      records: rows.map((row) => {
        const figures = own.get(row.id) ?? EMPTY_METRICS;
        return {
          ...toAffiliateSummary(row),
          boundAt: row.bound_from,
          unboundAt: row.bound_to,
          bound: row.bound_to === null,
          referredVolumeUsd: row.referred_volume_usd,
          referredConversions: BigInt(row.referred_conversions),
          volumeUsd: figures.volumeUsd,
          revenueUsd: figures.revenueUsd,
          conversions: figures.conversions,
          earnings: figures.earnings,
          agencyEarnings: agency.get(row.id) ?? [],
        };
      }),
      total: Number(count.total),
    };
  }

  /** Per sub-affiliate of the page, the master's agency payouts from its conversions, per currency (one query). */
  private async agencyEarningsBySub(projectId: string, masterId: string, affiliateIds: readonly string[]): Promise<Map<string, EarningRecord[]>> {
    const result = new Map<string, EarningRecord[]>();
    if (affiliateIds.length === 0) return result;
    const rows = await this.db
      .selectFrom('conversion_facts as f')
      .leftJoin('metric_currencies as c', 'c.id', 'f.currency_id')
      .select((eb) => [
        'f.affiliate_id',
        'f.currency_id',
        eb.fn.sum<bigint>('f.agency_payout').as('amount'),
        'c.chain_id',
        'c.address',
        'c.name',
        'c.decimals',
      ])
      .where('f.project_id', '=', projectId)
      .where('f.master_id', '=', masterId)
      .where('f.affiliate_id', 'in', affiliateIds)
      .where('f.agency_payout', '>', 0n)
      .groupBy(['f.affiliate_id', 'f.currency_id', 'c.chain_id', 'c.address', 'c.name', 'c.decimals'])
      .orderBy('f.affiliate_id')
      .orderBy('c.name')
      .orderBy('f.currency_id')
      .execute();
    for (const row of rows) {
      if (row.affiliate_id === null || row.currency_id === null) continue;
      result.set(row.affiliate_id, [...(result.get(row.affiliate_id) ?? []), toEarningRecord({ ...row, currency_id: row.currency_id })]);
    }
    return result;
  }
}
