import { CompiledQuery, type Kysely } from 'kysely';
import { preparedStatement } from '../../platform/db/prepared-statements';
import { userLists } from '../../platform/db/user-lists';
import type { IdentifierType, UserIdentifier } from '../../rules/identifiers';
import type { AgencyDatabase } from '../database';
import type { AffiliateRefRecord } from './referral.repository';

export interface AttributionQuery {
  user: UserIdentifier;
  at: Date;
}

/** What the referral tables say about one (user, at): who had referred the user by then, and whether it was suspended then. */
export interface AttributionRow {
  affiliate: AffiliateRefRecord;
  code: string;
  referredAt: Date;
  suspendedAt: boolean;
  /** Whether the affiliate is flagged now (its current status, not at `at`). */
  flagged: boolean;
  /** The master the affiliate was bound to at `at`, with its spread then, when the master was active then. */
  master: { affiliate: AffiliateRefRecord; spreadBps: number } | null;
  /**
   * The affiliate's active tier: the higher of its current tier (now) and the tier protected at
   * `at`, a protected segment that is no tier any more counting for nothing (higherTier's rule).
   */
  activeTierId: string | null;
  /** The rebate rate of the code the user was referred with (bps of the affiliate's reward, 0..2000), now; 0 when it has none. */
  userRebateRateBps: number;
  /**
   * The affiliate's upline at `at`, levels 2..4 in order (docs/claims.md#referral-levels): level 2 referred the
   * affiliate's own user, and so on; the chain stops where a user had no referral in force then. Suspended ones
   * are included (flagged): the domain leaves them out.
   */
  upline: UplineRow[];
}

export interface UplineRow {
  level: 2 | 3 | 4;
  affiliate: AffiliateRefRecord;
  /** Whether it was suspended at `at`. */
  suspended: boolean;
}

/**
 * The lookup the claim service makes for every conversion, for a whole batch in ONE statement: the
 * items are unnested in order and each looks up its referral by primary key (project $4), its
 * affiliate by primary key (its current status: flagged now or not), and its suspension periods by (affiliate_id, suspended_at). The key
 * lookups are LATERAL ... LIMIT 1 (at most one row by key anyway) so that they stay one index probe
 * per item whatever the statistics say: a project younger than its table's last ANALYZE is
 * estimated at one referral, and a plain join then compared every item with every referral of the
 * project (570 ms instead of 14 ms for 1,000 items beside 10,000 referrals). A user referred only
 * after `at` was not referred at `at`. The master is the one the affiliate was bound to at `at`
 * (bindings by (affiliate_id, bound_from)) with the spread in force then (spreads by (master_id,
 * valid_from)), unless that master was suspended then; the tier protection is the one in force then
 * (by (affiliate_id, starts_at)). The rebate rate is the referral's code's now (by the codes' (project_id, lower(code)) key). The active tier comes from the agency's tier projection
 * (migration 0010, fed by the audience service's events, so no call per batch): the affiliate's
 * current tier is its highest-ranked present membership of a tier segment (the user's memberships
 * in the project by audience_memberships_user_idx, each segment's rank by primary key, a handful per
 * affiliate), the protected tier's rank by primary key; the higher of the two is active, the
 * protected one on a tie (a tie is the same segment). One row per item, in item order.
 *
 * The upline (levels 2..4) is three more LATERALs of the same shape, each a step up the chain: the referral
 * in force at `at` of the level below's own user (by primary key), its affiliate (by primary key) and whether
 * that affiliate was suspended then. Three fixed steps rather than a recursive CTE: four levels is the rule, and
 * fixed key lookups keep the batch one index probe per item and level whatever the statistics say.
 *
 * The items travel as three comma-separated lists of one length ($1 identifier types, $2 identifiers,
 * $3 moments in unix milliseconds), split by string_to_array, and referred_at comes back in unix
 * milliseconds: pg's escaping of array parameters and its timestamp parsing cost more than the query
 * itself at this rate. The users' lists come from userLists (services/platform/db/user-lists.ts).
 *
 * Written as SQL text rather than with the query builder (unnest ... WITH ORDINALITY has no builder
 * form), and exported: `npm run bench` sends this very statement with pg as the physical limit, by
 * the same name: a prepared statement (services/platform/db/prepared-statements.ts), planned once per connection.
 */
/** One step up the chain (see RESOLVE_ATTRIBUTION_SQL): the affiliate whose referral of `below`'s own user was in force at `at`. */
const uplineStep = (alias: string, below: string) => `LEFT JOIN LATERAL (
  SELECT p.id, p.identifier, p.identifier_type, EXISTS (
           SELECT 1 FROM affiliate_suspensions s
           WHERE s.affiliate_id = p.id AND s.suspended_at <= i.at AND (s.reactivated_at IS NULL OR s.reactivated_at > i.at)
         ) AS suspended
  FROM referrals pr JOIN affiliates p ON p.id = pr.affiliate_id
  WHERE pr.project_id = $4 AND pr.identifier_type = ${below}.identifier_type AND pr.identifier = ${below}.identifier AND pr.referred_at <= i.at
  LIMIT 1
) ${alias} ON true`;

export const RESOLVE_ATTRIBUTION_STATEMENT = 'agency_resolve_attribution';
export const RESOLVE_ATTRIBUTION_SQL = preparedStatement(
  RESOLVE_ATTRIBUTION_STATEMENT,
  `SELECT r.affiliate_id, a.identifier AS affiliate_identifier, a.identifier_type AS affiliate_identifier_type,
       r.code, (extract(epoch FROM r.referred_at) * 1000)::float8 AS referred_at_ms, a.status = 'flagged' AS affiliate_flagged,
       EXISTS (
         SELECT 1 FROM affiliate_suspensions s
         WHERE s.affiliate_id = r.affiliate_id AND s.suspended_at <= i.at AND (s.reactivated_at IS NULL OR s.reactivated_at > i.at)
       ) AS suspended,
       m.id AS master_id, m.identifier AS master_identifier, m.identifier_type AS master_identifier_type, sp.spread_bps,
       EXISTS (
         SELECT 1 FROM affiliate_suspensions ms
         WHERE ms.affiliate_id = m.id AND ms.suspended_at <= i.at AND (ms.reactivated_at IS NULL OR ms.reactivated_at > i.at)
       ) AS master_suspended,
       CASE WHEN pt.tier_rank IS NOT NULL AND (ct.tier_rank IS NULL OR pt.tier_rank >= ct.tier_rank) THEN tp.tier_id ELSE ct.segment_id END AS active_tier_id,
       coalesce(rc.user_rebate_rate_bps, 0) AS user_rebate_rate_bps,
       u2.id AS u2_id, u2.identifier AS u2_identifier, u2.identifier_type AS u2_identifier_type, u2.suspended AS u2_suspended,
       u3.id AS u3_id, u3.identifier AS u3_identifier, u3.identifier_type AS u3_identifier_type, u3.suspended AS u3_suspended,
       u4.id AS u4_id, u4.identifier AS u4_identifier, u4.identifier_type AS u4_identifier_type, u4.suspended AS u4_suspended
FROM (
  SELECT u.identifier_type, u.identifier, timestamptz 'epoch' + u.at_ms::int8 * interval '1 millisecond' AS at, u.ord
  FROM unnest(string_to_array($1, ','), string_to_array($2, ','), string_to_array($3, ',')) WITH ORDINALITY AS u(identifier_type, identifier, at_ms, ord)
) i
LEFT JOIN LATERAL (
  SELECT r.affiliate_id, r.code, r.referred_at FROM referrals r
  WHERE r.project_id = $4 AND r.identifier_type = i.identifier_type AND r.identifier = i.identifier AND r.referred_at <= i.at
  LIMIT 1
) r ON true
LEFT JOIN LATERAL (SELECT a.identifier, a.identifier_type, a.status FROM affiliates a WHERE a.id = r.affiliate_id LIMIT 1) a ON true
LEFT JOIN LATERAL (
  SELECT c.user_rebate_rate_bps FROM affiliate_codes c
  WHERE c.project_id = $4 AND lower(c.code) = lower(r.code) AND c.affiliate_id = r.affiliate_id
  LIMIT 1
) rc ON true
LEFT JOIN LATERAL (
  SELECT b.master_id FROM sub_affiliate_bindings b
  WHERE b.affiliate_id = r.affiliate_id AND b.bound_from <= i.at AND (b.bound_to IS NULL OR b.bound_to > i.at)
  ORDER BY b.bound_from DESC LIMIT 1
) mb ON true
LEFT JOIN LATERAL (
  SELECT s.spread_bps FROM agency_spreads s
  WHERE s.master_id = mb.master_id AND s.valid_from <= i.at AND (s.valid_to IS NULL OR s.valid_to > i.at)
  ORDER BY s.valid_from DESC LIMIT 1
) sp ON true
LEFT JOIN LATERAL (SELECT m.id, m.identifier, m.identifier_type FROM affiliates m WHERE m.id = mb.master_id AND sp.spread_bps IS NOT NULL LIMIT 1) m ON true
LEFT JOIN LATERAL (
  SELECT t.tier_id FROM tier_protections t
  WHERE t.affiliate_id = r.affiliate_id AND t.starts_at <= i.at AND t.expires_at > i.at AND (t.ended_at IS NULL OR t.ended_at > i.at)
  ORDER BY t.starts_at DESC LIMIT 1
) tp ON true
LEFT JOIN LATERAL (
  SELECT st.segment_id, st.tier_rank FROM audience_memberships am JOIN segment_tiers st ON st.segment_id = am.segment_id
  WHERE am.project_id = $4 AND am.identifier_type = a.identifier_type AND am.identifier = a.identifier AND am.present AND st.tier_rank IS NOT NULL
  ORDER BY st.tier_rank DESC, st.segment_id LIMIT 1
) ct ON true
LEFT JOIN LATERAL (SELECT st.tier_rank FROM segment_tiers st WHERE st.segment_id = tp.tier_id AND st.project_id = $4 AND st.tier_rank IS NOT NULL LIMIT 1) pt ON true
${uplineStep('u2', 'a')}
${uplineStep('u3', 'u2')}
${uplineStep('u4', 'u3')}
ORDER BY i.ord`,
);

interface ResolvedRow {
  affiliate_id: string | null;
  affiliate_identifier: string | null;
  affiliate_identifier_type: IdentifierType | null;
  code: string | null;
  referred_at_ms: number | null;
  affiliate_flagged: boolean | null;
  suspended: boolean;
  master_id: string | null;
  master_identifier: string | null;
  master_identifier_type: IdentifierType | null;
  spread_bps: number | null;
  master_suspended: boolean;
  active_tier_id: string | null;
  user_rebate_rate_bps: number;
  u2_id: string | null;
  u2_identifier: string | null;
  u2_identifier_type: IdentifierType | null;
  u2_suspended: boolean | null;
  u3_id: string | null;
  u3_identifier: string | null;
  u3_identifier_type: IdentifierType | null;
  u3_suspended: boolean | null;
  u4_id: string | null;
  u4_identifier: string | null;
  u4_identifier_type: IdentifierType | null;
  u4_suspended: boolean | null;
}

/** The upline columns of a row, levels 2..4 in order, up to the first level with nobody. */
function uplineOf(row: ResolvedRow): UplineRow[] {
  const levels = [
    [2, row.u2_id, row.u2_identifier, row.u2_identifier_type, row.u2_suspended],
    [3, row.u3_id, row.u3_identifier, row.u3_identifier_type, row.u3_suspended],
    [4, row.u4_id, row.u4_identifier, row.u4_identifier_type, row.u4_suspended],
  ] as const;
  const upline: UplineRow[] = [];
  for (const [level, id, identifier, identifierType, suspended] of levels) {
    if (id === null || identifier === null || identifierType === null) break;
    upline.push({ level, affiliate: { id, user: { identifier, identifierType } }, suspended: suspended === true });
  }
  return upline;
}

/** The statement's parameters for a batch, in the order RESOLVE_ATTRIBUTION_SQL numbers them. */
export function resolveAttributionParameters(projectId: string, queries: readonly AttributionQuery[]): string[] {
  const { types, identifiers } = userLists(queries.map((query) => query.user));
  return [types, identifiers, queries.map((query) => query.at.getTime()).join(','), projectId];
}

export class AttributionRepository {
  constructor(private readonly db: Kysely<AgencyDatabase>) {}

  async resolve(projectId: string, queries: readonly AttributionQuery[]): Promise<Array<AttributionRow | undefined>> {
    if (queries.length === 0) return [];
    const { rows } = await this.db.executeQuery<ResolvedRow>(
      CompiledQuery.raw(RESOLVE_ATTRIBUTION_SQL, resolveAttributionParameters(projectId, queries)),
    );
    return rows.map((row) =>
      row.affiliate_id === null ||
      row.affiliate_identifier === null ||
      row.affiliate_identifier_type === null ||
      row.code === null ||
      row.referred_at_ms === null
        ? undefined
        : {
            affiliate: { id: row.affiliate_id, user: { identifier: row.affiliate_identifier, identifierType: row.affiliate_identifier_type } },
            code: row.code,
            referredAt: new Date(row.referred_at_ms),
            suspendedAt: row.suspended,
            flagged: row.affiliate_flagged === true,
            master:
              row.master_id === null ||
              row.master_identifier === null ||
              row.master_identifier_type === null ||
              row.spread_bps === null ||
              row.master_suspended
                ? null
                : {
                    affiliate: { id: row.master_id, user: { identifier: row.master_identifier, identifierType: row.master_identifier_type } },
                    spreadBps: row.spread_bps,
                  },
            activeTierId: row.active_tier_id,
            userRebateRateBps: row.user_rebate_rate_bps,
            upline: uplineOf(row),
          },
    );
  }
}
