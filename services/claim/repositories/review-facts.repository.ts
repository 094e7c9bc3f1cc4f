import { type Kysely, sql } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import type { ClaimDatabase } from '../database';

/** One conversion of a batch, as the review rules' facts are gathered for it. */
export interface ReviewedConversion {
  id: string;
  user: UserIdentifier;
  occurredAt: Date;
}

/** How far back the rule on conversions per user per hour looks. */
const HOUR_MS = 3_600_000;

/**
 * The facts of the review rules (domain/review-rules.ts) that the claim service's own tables hold, for a
 * whole batch in one query per fact. The referral's moment comes with the attribution (the agency's
 * BatchResolveAttribution answers referred_at), the planned reward from the batch's movements.
 */
export class ReviewFactsRepository {
  constructor(private readonly db: Kysely<ClaimDatabase>) {}

  /**
   * Per conversion, in order: how many other conversions of its user in the project occurred in the
   * hour ending at it (occurred_at in (at − 1 h, at], any name and status, itself left out). One
   * statement: each item is one range of conversions_user_time_idx (migration 0011).
   */
  async otherConversionsInHour(projectId: string, conversions: readonly ReviewedConversion[]): Promise<number[]> {
    if (conversions.length === 0) return [];
    const column = <T>(pick: (conversion: ReviewedConversion) => T) => conversions.map(pick);
    // Raw: a correlated count per unnested item has no builder form.
    const { rows } = await sql<{ others: string }>`
      SELECT (
        SELECT count(*) FROM conversions c
        WHERE c.project_id = ${projectId} AND c.identifier_type = i.identifier_type AND c.identifier = i.identifier
          AND c.occurred_at > i.since AND c.occurred_at <= i.at AND c.id <> i.id
      ) AS others
      FROM unnest(
        ${column((c) => c.id)}::text[], ${column((c) => c.user.identifierType)}::text[], ${column((c) => c.user.identifier)}::text[],
        ${column((c) => c.occurredAt.toISOString())}::timestamptz[], ${column((c) => new Date(c.occurredAt.getTime() - HOUR_MS).toISOString())}::timestamptz[]
      ) WITH ORDINALITY AS i(id, identifier_type, identifier, at, since, ord)
      ORDER BY i.ord`.execute(this.db);
    return rows.map((row) => Number(row.others));
  }
}
