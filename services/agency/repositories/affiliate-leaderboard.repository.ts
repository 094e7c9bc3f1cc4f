import { type Kysely, sql } from 'kysely';
import type { IdentifierType, UserIdentifier } from '../../rules/identifiers';
import type { Page } from '../../rules/pagination';
import type { AgencyDatabase } from '../database';

/** What a board ranks by, all-time, from the metrics projection (docs/affiliates.md#leaderboards). */
export type LeaderboardMetric = 'volume' | 'revenue' | 'referred_users';

export interface AffiliateLeaderboardRecord {
  rank: number;
  user: UserIdentifier;
  /** The affiliate's oldest code; null for an end user. */
  code: string | null;
  /** USD as a decimal string (volume, revenue) or a count (referred_users). */
  total: string;
  conversions: bigint;
}

/** An affiliate's referral figures, all time. */
export interface ReferralFiguresRecord {
  /** USD decimal string: what the users it referred brought. */
  volumeUsd: string;
  /** The users it referred, converted or not. */
  referredUsers: bigint;
  /** Its oldest code. */
  code: string | null;
}

/** The column of affiliate_metrics each board ranks by (each has an index led by (project_id, column, affiliate_id)). */
const AFFILIATE_COLUMN = { volume: sql.ref('m.volume_usd'), revenue: sql.ref('m.revenue_usd'), referred_users: sql.ref('m.end_users') } as const;
/** The end users' figure: what their conversions brought, summed over the affiliates they were attributed to. */
const END_USER_SUM = { volume: sql`sum(u.volume_usd)`, revenue: sql`sum(u.revenue_usd)` } as const;

/**
 * The volume, revenue and referred-users boards, all-time, read from the metrics projection (kept with
 * every conversion fact, never by scanning conversions): affiliates ranked by what the users they referred
 * brought (affiliate_metrics, a range of its per-metric index: ties by affiliate id, newest id first), end
 * users by what their own conversions brought (referred_user_metrics summed per user: ties by identifier).
 * Only figures above zero are on a board.
 */
export class AffiliateLeaderboardRepository {
  constructor(private readonly db: Kysely<AgencyDatabase>) {}

  async affiliatesPage(projectId: string, metric: LeaderboardMetric, page: Page): Promise<{ records: AffiliateLeaderboardRecord[]; total: number }> {
    const column = AFFILIATE_COLUMN[metric];
    // Raw: a page of an index range, and its size beside it (kept in affiliate_board_sizes by 0025's trigger: counting
    // the range was most of a page's time), in one statement. The affiliate and its code are looked up for the page's rows only, after LIMIT/OFFSET: joined below the limit, every row skipped by the offset would
    // pay both lookups too (a deep page of a 50,000-affiliate board, tens of thousands of them).
    const { rows } = await sql<{
      entries: bigint;
      identifier: string | null;
      identifier_type: IdentifierType | null;
      code: string | null;
      total: string | null;
      conversions: bigint | null;
    }>`
      SELECT size.entries, a.identifier, a.identifier_type, t.total, t.conversions,
             (SELECT c.code FROM affiliate_codes c WHERE c.affiliate_id = t.affiliate_id ORDER BY c.id LIMIT 1) AS code
      FROM (SELECT coalesce((SELECT s.entries FROM affiliate_board_sizes s WHERE s.project_id = ${projectId} AND s.metric = ${metric}), 0) AS entries) size
      LEFT JOIN LATERAL (
        SELECT m.affiliate_id, ${column} AS value, ${column}::text AS total, m.conversions
        FROM affiliate_metrics m
        WHERE m.project_id = ${projectId} AND ${column} > 0
        ORDER BY ${column} DESC, m.affiliate_id DESC
        LIMIT ${page.pageSize} OFFSET ${page.offset}
      ) t ON true
      LEFT JOIN affiliates a ON a.id = t.affiliate_id
      ORDER BY t.value DESC, t.affiliate_id DESC`.execute(this.db);
    return { records: toRecords(rows, page), total: Number(rows[0]?.entries ?? 0n) };
  }

  /** One affiliate's entry with its rank (1 + the affiliates ahead of it), if it is on the board. */
  async affiliateEntry(projectId: string, metric: LeaderboardMetric, user: UserIdentifier): Promise<AffiliateLeaderboardRecord | undefined> {
    const column = AFFILIATE_COLUMN[metric];
    const { rows } = await sql<{
      identifier: string;
      identifier_type: IdentifierType;
      code: string | null;
      total: string;
      conversions: bigint;
      ahead: bigint;
    }>`
      WITH mine AS (
        SELECT m.affiliate_id, ${column} AS value, m.conversions, a.identifier, a.identifier_type
        FROM affiliates a JOIN affiliate_metrics m ON m.affiliate_id = a.id
        WHERE a.project_id = ${projectId} AND a.identifier = ${user.identifier} AND a.identifier_type = ${user.identifierType} AND ${column} > 0
      )
      SELECT mine.identifier, mine.identifier_type, mine.value::text AS total, mine.conversions,
             (SELECT c.code FROM affiliate_codes c WHERE c.affiliate_id = mine.affiliate_id ORDER BY c.id LIMIT 1) AS code,
             (SELECT count(*) FROM affiliate_metrics m WHERE m.project_id = ${projectId}
                AND (${column}, m.affiliate_id) > (mine.value, mine.affiliate_id)) AS ahead
      FROM mine`.execute(this.db);
    const row = rows[0];
    if (!row) return undefined;
    return {
      rank: Number(row.ahead) + 1,
      user: { identifier: row.identifier, identifierType: row.identifier_type },
      code: row.code,
      total: row.total,
      conversions: row.conversions,
    };
  }

  async endUsersPage(projectId: string, metric: 'volume' | 'revenue', page: Page): Promise<{ records: AffiliateLeaderboardRecord[]; total: number }> {
    const { rows } = await sql<{
      entries: bigint;
      identifier: string | null;
      identifier_type: IdentifierType | null;
      code: null;
      total: string | null;
      conversions: bigint | null;
    }>`
      WITH summed AS (${this.endUserSums(projectId, metric)})
      SELECT size.entries, t.identifier, t.identifier_type, NULL AS code, t.total, t.conversions
      FROM (SELECT count(*) AS entries FROM summed) size
      LEFT JOIN LATERAL (
        SELECT identifier, identifier_type, value::text AS total, conversions FROM summed
        ORDER BY value DESC, identifier, identifier_type
        LIMIT ${page.pageSize} OFFSET ${page.offset}
      ) t ON true`.execute(this.db);
    return { records: toRecords(rows, page), total: Number(rows[0]?.entries ?? 0n) };
  }

  async endUserEntry(projectId: string, metric: 'volume' | 'revenue', user: UserIdentifier): Promise<AffiliateLeaderboardRecord | undefined> {
    const { rows } = await sql<{ total: string; conversions: bigint; ahead: bigint }>`
      WITH summed AS (${this.endUserSums(projectId, metric)}),
      mine AS (SELECT value, conversions FROM summed WHERE identifier = ${user.identifier} AND identifier_type = ${user.identifierType})
      SELECT mine.value::text AS total, mine.conversions,
             (SELECT count(*) FROM summed s WHERE s.value > mine.value
                OR s.value = mine.value AND (s.identifier, s.identifier_type) < (${user.identifier}, ${user.identifierType})) AS ahead
      FROM mine`.execute(this.db);
    const row = rows[0];
    if (!row) return undefined;
    return { rank: Number(row.ahead) + 1, user, code: null, total: row.total, conversions: row.conversions };
  }

  /** Each named user's referral figures, by `identifier_type|identifier`: only users that are affiliates of the project. */
  async referralFigures(projectId: string, users: UserIdentifier[]): Promise<Map<string, ReferralFiguresRecord>> {
    if (users.length === 0) return new Map();
    // Raw: the users as a list of (type, identifier) pairs. Built with the query builder, an OR of up to 100 ANDs
    // cost the service more to build and compile than PostgreSQL to run (the bench's referred-volume profile).
    const pairs = sql.join(users.map((user) => sql`(${user.identifierType}, ${user.identifier})`));
    const { rows } = await sql<{ identifier: string; identifier_type: IdentifierType; volume_usd: string; end_users: bigint; code: string | null }>`
      SELECT a.identifier, a.identifier_type, m.volume_usd::text AS volume_usd, m.end_users,
             (SELECT c.code FROM affiliate_codes c WHERE c.affiliate_id = a.id ORDER BY c.id LIMIT 1) AS code
      FROM affiliates a JOIN affiliate_metrics m ON m.affiliate_id = a.id
      WHERE a.project_id = ${projectId} AND (a.identifier_type, a.identifier) IN (${pairs})`.execute(this.db);
    return new Map(
      rows.map((row) => [`${row.identifier_type}|${row.identifier}`, { volumeUsd: row.volume_usd, referredUsers: row.end_users, code: row.code }]),
    );
  }

  private endUserSums(projectId: string, metric: 'volume' | 'revenue') {
    return sql`
      SELECT u.identifier, u.identifier_type, ${END_USER_SUM[metric]} AS value, sum(u.conversions) AS conversions
      FROM referred_user_metrics u
      WHERE u.project_id = ${projectId}
      GROUP BY u.identifier, u.identifier_type
      HAVING ${END_USER_SUM[metric]} > 0`;
  }
}

function toRecords(
  rows: Array<{
    identifier: string | null;
    identifier_type: IdentifierType | null;
    code: string | null;
    total: string | null;
    conversions: bigint | null;
  }>,
  page: Page,
): AffiliateLeaderboardRecord[] {
  const records: AffiliateLeaderboardRecord[] = [];
  for (const row of rows) {
    if (row.identifier === null || row.identifier_type === null || row.total === null || row.conversions === null) continue;
    records.push({
      rank: page.offset + records.length + 1,
      user: { identifier: row.identifier, identifierType: row.identifier_type },
      code: row.code,
      total: row.total,
      conversions: row.conversions,
    });
  }
  return records;
}
