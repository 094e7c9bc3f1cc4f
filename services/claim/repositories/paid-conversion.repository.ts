import { type Kysely, sql } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import type { ClaimDatabase } from '../database';
import { type CurrencyRecord, toCurrencyRecord } from './currency.repository';

/** A paid (or no_terms) conversion with what claim.conversion.processed told about it. */
export interface PaidConversionRecord {
  id: string;
  name: string;
  status: 'processed' | 'no_terms';
  occurredAt: Date;
  user: UserIdentifier;
  affiliateId: string | null;
  masterId: string | null;
  masterSpreadBps: number | null;
  tierId: string | null;
  volumeUsd: string | null;
  revenueUsd: string | null;
  currency: CurrencyRecord | null;
  affiliatePayout: bigint;
  agencyPayout: bigint;
  /** Its reversals, oldest first: what claim.conversion.reversed told of each. */
  reversals: PaidConversionReversalRecord[];
  /** Its frozen upline, ascending, each level with its affiliate_payout as paid (0: not paid), docs/claims.md#referral-levels. */
  upline: Array<{ level: number; affiliateId: string; affiliatePayout: bigint }>;
}

/** One reversal of a paid conversion: its share, the share of the figures, the payouts taken back by kind. */
export interface PaidConversionReversalRecord {
  reversalId: string;
  shareBps: number;
  volumeUsd: string | null;
  revenueUsd: string | null;
  affiliatePayout: bigint;
  agencyPayout: bigint;
  /** What it took back from each upline level's affiliate_payout (the levels it took something from), ascending. */
  upline: Array<{ level: number; amount: bigint }>;
}

/**
 * The project's paid conversions in id order, for consumers rebuilding a projection: one index range
 * of the conversions' primary key, their movements summed per kind beside (the movements' unique key
 * leads with the conversion), and their currencies and their reversals in two more queries.
 */
export class PaidConversionRepository {
  constructor(private readonly db: Kysely<ClaimDatabase>) {}

  async page(projectId: string, afterId: string | null, limit: number): Promise<PaidConversionRecord[]> {
    let query = this.db
      .selectFrom('conversions as c')
      .select((eb) => [
        'c.id',
        'c.name',
        'c.status',
        'c.occurred_at',
        'c.identifier_type',
        'c.identifier',
        'c.affiliate_id',
        'c.master_id',
        'c.master_spread_bps',
        'c.tier_id',
        'c.currency_id',
        eb.cast<string | null>('c.volume_usd', 'text').as('volume_usd'),
        eb.cast<string | null>('c.revenue_usd', 'text').as('revenue_usd'),
        eb
          .selectFrom('movements as m')
          // The referring affiliate's (level 1): the upline's payouts are its own affiliates' (docs/claims.md#referral-levels).
          .select(sql<bigint>`coalesce(sum(m.amount) FILTER (WHERE m.kind = 'affiliate_payout' AND m.level = 1), 0)`.as('paid'))
          .whereRef('m.project_id', '=', 'c.project_id')
          .whereRef('m.conversion_id', '=', 'c.id')
          .as('affiliate_payout'),
        eb
          .selectFrom('movements as m')
          .select(sql<bigint>`coalesce(sum(m.amount) FILTER (WHERE m.kind = 'agency_payout'), 0)`.as('paid'))
          .whereRef('m.project_id', '=', 'c.project_id')
          .whereRef('m.conversion_id', '=', 'c.id')
          .as('agency_payout'),
      ])
      .where('c.project_id', '=', projectId)
      .where('c.status', 'in', ['processed', 'no_terms']);
    if (afterId !== null) query = query.where('c.id', '>', afterId);
    const rows = await query.orderBy('c.id').limit(limit).execute();
    const currencyIds = [...new Set(rows.flatMap((row) => (row.currency_id === null ? [] : [row.currency_id])))];
    const currencies =
      currencyIds.length === 0
        ? new Map<string, CurrencyRecord>()
        : new Map(
            (await this.db.selectFrom('currencies').selectAll().where('project_id', '=', projectId).where('id', 'in', currencyIds).execute()).map(
              (row) => [row.id, toCurrencyRecord(row)],
            ),
          );
    const ids = rows.map((row) => row.id);
    const [reversals, uplines] = await Promise.all([this.reversalsOf(projectId, ids), this.uplinesOf(projectId, ids)]);
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      status: row.status as 'processed' | 'no_terms',
      occurredAt: row.occurred_at,
      user: { identifier: row.identifier, identifierType: row.identifier_type },
      affiliateId: row.affiliate_id,
      masterId: row.master_id,
      masterSpreadBps: row.master_spread_bps,
      tierId: row.tier_id,
      volumeUsd: row.volume_usd,
      revenueUsd: row.revenue_usd,
      currency: row.currency_id === null ? null : (currencies.get(row.currency_id) ?? null),
      affiliatePayout: BigInt(row.affiliate_payout ?? 0),
      agencyPayout: BigInt(row.agency_payout ?? 0),
      reversals: reversals.get(row.id) ?? [],
      upline: uplines.get(row.id) ?? [],
    }));
  }

  /** The frozen upline of these conversions, each level with what its affiliate_payout paid (one query, none for most pages' rows). */
  private async uplinesOf(projectId: string, conversionIds: readonly string[]): Promise<Map<string, PaidConversionRecord['upline']>> {
    const result = new Map<string, PaidConversionRecord['upline']>();
    if (conversionIds.length === 0) return result;
    // Raw: a sum per level of the movements of that level (the ledger's key makes it one movement at most).
    const { rows } = await sql<{ conversion_id: string; level: number; affiliate_id: string; paid: string }>`
      SELECT u.conversion_id, u.level, u.affiliate_id, coalesce(sum(m.amount), 0)::text AS paid
      FROM conversion_upline u
      LEFT JOIN movements m ON m.project_id = u.project_id AND m.conversion_id = u.conversion_id AND m.kind = 'affiliate_payout' AND m.level = u.level
      WHERE u.project_id = ${projectId} AND u.conversion_id = ANY(${[...conversionIds]}::text[])
      GROUP BY u.conversion_id, u.level, u.affiliate_id
      ORDER BY u.conversion_id, u.level`.execute(this.db);
    for (const row of rows) {
      const list = result.get(row.conversion_id) ?? [];
      list.push({ level: row.level, affiliateId: row.affiliate_id, affiliatePayout: BigInt(row.paid) });
      result.set(row.conversion_id, list);
    }
    return result;
  }

  /** The reversals of these conversions, oldest first, each with what it took back from the affiliate and agency payouts. */
  private async reversalsOf(projectId: string, conversionIds: readonly string[]): Promise<Map<string, PaidConversionReversalRecord[]>> {
    const result = new Map<string, PaidConversionReversalRecord[]>();
    if (conversionIds.length === 0) return result;
    // Raw: one aggregate per reversal over its movement parts (a reversal of declined movements has none).
    const { rows } = await sql<{
      conversion_id: string;
      reversal_id: string;
      share_bps: number;
      volume_usd: string | null;
      revenue_usd: string | null;
      affiliate_payout: string;
      agency_payout: string;
      upline: Array<{ level: number; amount: string }>;
    }>`
      SELECT r.conversion_id, r.reversal_id, r.share_bps, r.volume_usd::text AS volume_usd, r.revenue_usd::text AS revenue_usd,
             coalesce(sum(mr.amount) FILTER (WHERE m.kind = 'affiliate_payout' AND m.level = 1), 0)::text AS affiliate_payout,
             coalesce(sum(mr.amount) FILTER (WHERE m.kind = 'agency_payout'), 0)::text AS agency_payout,
             -- Per upline level (docs/claims.md#referral-levels): empty unless the conversion paid one.
             (SELECT coalesce(jsonb_agg(jsonb_build_object('level', l.level, 'amount', l.amount::text) ORDER BY l.level), '[]'::jsonb)
              FROM (SELECT lm.level, sum(lr.amount) AS amount FROM movement_reversals lr JOIN movements lm ON lm.id = lr.movement_id
                    WHERE lr.project_id = r.project_id AND lr.reversal_id = r.reversal_id AND lm.kind = 'affiliate_payout' AND lm.level > 1
                    GROUP BY lm.level) AS l) AS upline
      FROM conversion_reversals r
      LEFT JOIN movement_reversals mr ON mr.project_id = r.project_id AND mr.reversal_id = r.reversal_id
      LEFT JOIN movements m ON m.id = mr.movement_id
      WHERE r.project_id = ${projectId} AND r.conversion_id = ANY(${[...conversionIds]}::text[])
      GROUP BY r.project_id, r.conversion_id, r.reversal_id, r.share_bps, r.volume_usd, r.revenue_usd, r.created_at
      ORDER BY r.conversion_id, r.created_at, r.reversal_id`.execute(this.db);
    for (const row of rows) {
      const list = result.get(row.conversion_id) ?? [];
      list.push({
        reversalId: row.reversal_id,
        shareBps: row.share_bps,
        volumeUsd: row.volume_usd,
        revenueUsd: row.revenue_usd,
        affiliatePayout: BigInt(row.affiliate_payout),
        agencyPayout: BigInt(row.agency_payout),
        upline: row.upline.map((level) => ({ level: level.level, amount: BigInt(level.amount) })),
      });
      result.set(row.conversion_id, list);
    }
    return result;
  }
}
