import { type Kysely, sql } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import type { Page } from '../../rules/pagination';
import type { AgencyDatabase } from '../database';
import type { ReferredUserSort } from '../domain/vocabulary';

export interface ReferredUserRecord {
  user: UserIdentifier;
  code: string;
  referredAt: Date;
  /** USD decimal strings. */
  volumeUsd: string;
  revenueUsd: string;
  conversions: bigint;
}

/** The users an affiliate referred (its L1 referral tree), each with the figures of its conversions. */
export class ReferredUsersRepository {
  constructor(private readonly db: Kysely<AgencyDatabase>) {}

  async list(affiliateId: string, sort: ReferredUserSort, page: Page): Promise<{ records: ReferredUserRecord[]; total: number }> {
    const base = this.db.selectFrom('referrals as r').where('r.affiliate_id', '=', affiliateId);
    const key = {
      referred_at: sql`r.referred_at`,
      volume_usd: sql`coalesce(m.volume_usd, 0)`,
      revenue_usd: sql`coalesce(m.revenue_usd, 0)`,
      conversions: sql`coalesce(m.conversions, 0)`,
    }[sort];
    const [rows, count] = await Promise.all([
      base
        // The figures of the user's conversions attributed to this affiliate (the metrics projection).
        .leftJoin('referred_user_metrics as m', (join) =>
          join.on('m.affiliate_id', '=', affiliateId).onRef('m.identifier_type', '=', 'r.identifier_type').onRef('m.identifier', '=', 'r.identifier'),
        )
        .select((eb) => [
          'r.identifier',
          'r.identifier_type',
          'r.code',
          'r.referred_at',
          eb.cast<string>(eb.fn.coalesce('m.volume_usd', sql.lit(0)), 'text').as('volume_usd'),
          eb.cast<string>(eb.fn.coalesce('m.revenue_usd', sql.lit(0)), 'text').as('revenue_usd'),
          eb.fn.coalesce('m.conversions', sql<bigint>`0::int8`).as('conversions'),
        ])
        .orderBy(key, 'desc')
        // Ties newest referral first, then one stable order.
        .orderBy('r.referred_at', 'desc')
        .orderBy('r.identifier_type', 'desc')
        .orderBy('r.identifier', 'desc')
        .limit(page.pageSize)
        .offset(page.offset)
        .execute(),
      base.select((eb) => eb.fn.countAll<bigint>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return {
      records: rows.map((row) => ({
        user: { identifier: row.identifier, identifierType: row.identifier_type },
        code: row.code,
        referredAt: row.referred_at,
        volumeUsd: row.volume_usd,
        revenueUsd: row.revenue_usd,
        conversions: BigInt(row.conversions),
      })),
      total: Number(count.total),
    };
  }
}
