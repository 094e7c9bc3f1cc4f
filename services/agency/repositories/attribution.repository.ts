import { CompiledQuery, type Kysely } from 'kysely';
import type { IdentifierType, UserIdentifier } from '../../common/identifiers';
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
}

/**
 * The lookup the claim service makes for every conversion, for a whole batch in ONE statement: the
 * items are unnested in order and joined to referrals by primary key (project $4), to the affiliate
 * by primary key, and to its suspension periods by (affiliate_id, suspended_at). A user referred only
 * after `at` was not referred at `at`. One row per item, in item order.
 *
 * The items travel as three comma-separated lists of one length ($1 identifier types, $2 identifiers,
 * $3 moments in unix milliseconds), split by string_to_array, and referred_at comes back in unix
 * milliseconds: pg's escaping of array parameters and its timestamp parsing cost more than the query
 * itself at this rate. A comma is in no valid identifier of any type (services/common/identifiers.ts),
 * and every item is checked before it gets here.
 *
 * Written as SQL text rather than with the query builder (unnest ... WITH ORDINALITY has no builder
 * form), and exported: `npm run bench` sends this very statement with pg as the physical limit.
 */
export const RESOLVE_ATTRIBUTION_SQL = `SELECT r.affiliate_id, a.identifier AS affiliate_identifier, a.identifier_type AS affiliate_identifier_type,
       r.code, (extract(epoch FROM r.referred_at) * 1000)::float8 AS referred_at_ms,
       EXISTS (
         SELECT 1 FROM affiliate_suspensions s
         WHERE s.affiliate_id = r.affiliate_id AND s.suspended_at <= i.at AND (s.reactivated_at IS NULL OR s.reactivated_at > i.at)
       ) AS suspended
FROM (
  SELECT u.identifier_type, u.identifier, timestamptz 'epoch' + u.at_ms::int8 * interval '1 millisecond' AS at, u.ord
  FROM unnest(string_to_array($1, ','), string_to_array($2, ','), string_to_array($3, ',')) WITH ORDINALITY AS u(identifier_type, identifier, at_ms, ord)
) i
LEFT JOIN referrals r ON r.project_id = $4 AND r.identifier_type = i.identifier_type AND r.identifier = i.identifier AND r.referred_at <= i.at
LEFT JOIN affiliates a ON a.id = r.affiliate_id
ORDER BY i.ord`;

interface ResolvedRow {
  affiliate_id: string | null;
  affiliate_identifier: string | null;
  affiliate_identifier_type: IdentifierType | null;
  code: string | null;
  referred_at_ms: number | null;
  suspended: boolean;
}

/** The statement's parameters for a batch, in the order RESOLVE_ATTRIBUTION_SQL numbers them. */
export function resolveAttributionParameters(projectId: string, queries: readonly AttributionQuery[]): string[] {
  const types = new Array<string>(queries.length);
  const identifiers = new Array<string>(queries.length);
  const moments = new Array<number>(queries.length);
  for (let index = 0; index < queries.length; index += 1) {
    const { user, at } = queries[index]!;
    // Unreachable for a checked identifier; a comma would shift every later item.
    if (user.identifier.includes(',')) throw new Error('an identifier with a comma reached the attribution statement');
    types[index] = user.identifierType;
    identifiers[index] = user.identifier;
    moments[index] = at.getTime();
  }
  return [types.join(','), identifiers.join(','), moments.join(','), projectId];
}

export class AttributionRepository {
  constructor(private readonly db: Kysely<AgencyDatabase>) {}

  async resolve(projectId: string, queries: readonly AttributionQuery[]): Promise<Array<AttributionRow | undefined>> {
    if (queries.length === 0) return [];
    const { rows } = await this.db.executeQuery<ResolvedRow>(CompiledQuery.raw(RESOLVE_ATTRIBUTION_SQL, resolveAttributionParameters(projectId, queries)));
    return rows.map((row) =>
      row.affiliate_id === null || row.affiliate_identifier === null || row.affiliate_identifier_type === null || row.code === null || row.referred_at_ms === null
        ? undefined
        : {
            affiliate: { id: row.affiliate_id, user: { identifier: row.affiliate_identifier, identifierType: row.affiliate_identifier_type } },
            code: row.code,
            referredAt: new Date(row.referred_at_ms),
            suspendedAt: row.suspended,
          },
    );
  }
}
