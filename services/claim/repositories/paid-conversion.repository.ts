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
}

/**
 * The project's paid conversions in id order, for consumers rebuilding a projection: one index range
 * of the conversions' primary key, their movements summed per kind beside (the movements' unique key
 * leads with the conversion), and their currencies in one more query.
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
          .select(sql<bigint>`coalesce(sum(m.amount) FILTER (WHERE m.kind = 'affiliate_payout'), 0)`.as('paid'))
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
    }));
  }
}
