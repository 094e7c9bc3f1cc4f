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

/** One affiliate of another's downline (docs/claims.md#referral-levels), with its own all-time level-1 figures. */
export interface DownlineRecord {
  affiliateId: string;
  user: UserIdentifier;
  parentId: string;
  /** 1..4 below the root. */
  level: number;
  volumeUsd: string;
  revenueUsd: string;
  convertingUsers: bigint;
  endUsers: bigint;
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

  /**
   * The affiliate's downline to four levels (docs/claims.md#referral-levels): the affiliates whose own users
   * it referred (level 1), the affiliates theirs referred (level 2), and so on, by the referrals in force now.
   * One recursive statement: each step reads the level's referrals by affiliate (referrals_affiliate_code_idx)
   * and keeps the referred users that are affiliates (affiliates_user_key); every node is counted per level,
   * and the first `limit` by level, then volume (the metrics row), come back with their figures. Cycles cannot
   * exist (referrals refuse them), and the depth bound ends the walk whatever the data.
   */
  async downline(projectId: string, affiliateId: string, limit: number): Promise<{ perLevel: bigint[]; nodes: DownlineRecord[] }> {
    // Raw: a recursive CTE (no builder form) with a window count per level.
    const { rows } = await sql<{
      affiliate_id: string;
      identifier: string;
      identifier_type: string;
      parent_id: string;
      level: number;
      volume_usd: string;
      revenue_usd: string;
      converting_users: string;
      end_users: string;
      per_level: string;
    }>`
      WITH RECURSIVE down (affiliate_id, parent_id, level) AS (
        SELECT a.id, r.affiliate_id, 1
        FROM referrals r JOIN affiliates a ON a.project_id = r.project_id AND a.identifier_type = r.identifier_type AND a.identifier = r.identifier
        WHERE r.affiliate_id = ${affiliateId} AND r.project_id = ${projectId}
        UNION ALL
        SELECT a.id, d.affiliate_id, d.level + 1
        FROM down d JOIN referrals r ON r.affiliate_id = d.affiliate_id AND r.project_id = ${projectId}
        JOIN affiliates a ON a.project_id = r.project_id AND a.identifier_type = r.identifier_type AND a.identifier = r.identifier
        WHERE d.level < 4
      )
      SELECT d.affiliate_id, a.identifier, a.identifier_type, d.parent_id, d.level,
        coalesce(m.volume_usd, 0)::text AS volume_usd, coalesce(m.revenue_usd, 0)::text AS revenue_usd,
        coalesce(m.converting_users, 0) AS converting_users, coalesce(m.end_users, 0) AS end_users,
        count(*) OVER (PARTITION BY d.level) AS per_level
      FROM down d JOIN affiliates a ON a.id = d.affiliate_id LEFT JOIN affiliate_metrics m ON m.affiliate_id = d.affiliate_id
      ORDER BY d.level, coalesce(m.volume_usd, 0) DESC, d.affiliate_id`.execute(this.db);
    const perLevel = [1, 2, 3, 4].map((level) => BigInt(rows.find((row) => Number(row.level) === level)?.per_level ?? 0));
    const nodes = rows.slice(0, limit).map((row) => ({
      affiliateId: row.affiliate_id,
      user: { identifier: row.identifier, identifierType: row.identifier_type as UserIdentifier['identifierType'] },
      parentId: row.parent_id,
      level: Number(row.level),
      volumeUsd: row.volume_usd,
      revenueUsd: row.revenue_usd,
      convertingUsers: BigInt(row.converting_users),
      endUsers: BigInt(row.end_users),
    }));
    return { perLevel, nodes };
  }
}
