import { type Kysely, sql } from 'kysely';
import type { UserIdentifier } from '../../common/identifiers';
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
 * The lookup the claim service makes for every conversion, for a whole batch in ONE statement:
 * the items are unnested (in order) and joined to referrals by primary key, to the affiliate by
 * primary key, and to its suspension periods by (affiliate_id, suspended_at). A user referred only
 * after `at` was not referred at `at`.
 */
export class AttributionRepository {
  constructor(private readonly db: Kysely<AgencyDatabase>) {}

  async resolve(projectId: string, queries: readonly AttributionQuery[]): Promise<Array<AttributionRow | undefined>> {
    if (queries.length === 0) return [];
    const { rows } = await sql<{
      ord: string;
      affiliate_id: string | null;
      affiliate_identifier: string | null;
      affiliate_identifier_type: UserIdentifier['identifierType'] | null;
      code: string | null;
      referred_at: Date | null;
      suspended: boolean;
    }>`
      SELECT i.ord, r.affiliate_id, a.identifier AS affiliate_identifier, a.identifier_type AS affiliate_identifier_type,
             r.code, r.referred_at,
             EXISTS (
               SELECT 1 FROM affiliate_suspensions s
               WHERE s.affiliate_id = r.affiliate_id AND s.suspended_at <= i.at AND (s.reactivated_at IS NULL OR s.reactivated_at > i.at)
             ) AS suspended
      FROM unnest(${queries.map((q) => q.user.identifierType)}::text[], ${queries.map((q) => q.user.identifier)}::text[],
                  ${queries.map((q) => q.at.toISOString())}::timestamptz[]) WITH ORDINALITY AS i(identifier_type, identifier, at, ord)
      LEFT JOIN referrals r
        ON r.project_id = ${projectId} AND r.identifier_type = i.identifier_type AND r.identifier = i.identifier AND r.referred_at <= i.at
      LEFT JOIN affiliates a ON a.id = r.affiliate_id
      ORDER BY i.ord`.execute(this.db);
    return rows.map((row) =>
      row.affiliate_id === null || row.affiliate_identifier === null || row.affiliate_identifier_type === null || row.code === null || row.referred_at === null
        ? undefined
        : {
            affiliate: { id: row.affiliate_id, user: { identifier: row.affiliate_identifier, identifierType: row.affiliate_identifier_type } },
            code: row.code,
            referredAt: row.referred_at,
            suspendedAt: row.suspended,
          },
    );
  }
}
