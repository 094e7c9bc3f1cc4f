import { type Kysely, sql } from 'kysely';
import { readPage } from '../../platform/db/paged-list';
import type { UserIdentifier } from '../../rules/identifiers';
import type { Page } from '../../rules/pagination';
import type { ClaimDatabase } from '../database';
import type { BrokenRule } from '../domain/review-rules';
import type { ReviewDecision, ReviewRule, ReviewStatus } from '../domain/vocabulary';

/** A conversion the review rules flagged. */
export interface ConversionReviewRecord {
  conversionId: string;
  user: UserIdentifier;
  rules: BrokenRule[];
  flaggedAt: Date;
  decidedAt: Date | null;
  decision: ReviewDecision | null;
}

export interface NewConversionReview {
  conversionId: string;
  user: UserIdentifier;
  rules: BrokenRule[];
}

export interface ConversionReviewFilters {
  rule?: ReviewRule;
  status?: ReviewStatus;
  user?: UserIdentifier;
}

/** The rules as stored: figures as decimal strings (a reward is base units, past what JSON numbers hold). */
interface StoredRule {
  rule: ReviewRule;
  limit: string;
  actual: string;
}

/**
 * The review queue (migration 0011): one row per flagged conversion. Flagging is an insert that a
 * redelivered batch repeats harmlessly (the primary key); a decision is set once.
 */
export class ConversionReviewRepository {
  constructor(private readonly db: Kysely<ClaimDatabase>) {}

  /** Flags the conversions in one statement (flagConversions, over the repository's connections). */
  flag(projectId: string, reviews: readonly NewConversionReview[], now: Date): Promise<Set<string>> {
    return flagConversions(this.db, projectId, reviews, now);
  }

  /** Records the decision of open reviews (decideReviews, over the repository's connections). */
  decide(projectId: string, conversionIds: readonly string[], decision: ReviewDecision, now: Date): Promise<Set<string>> {
    return decideReviews(this.db, projectId, conversionIds, decision, now);
  }

  /** Newest flagged first (ties by conversion id, descending), with the filters given. */
  async list(projectId: string, filters: ConversionReviewFilters, page: Page): Promise<{ records: ConversionReviewRecord[]; total: number }> {
    let matching = this.db.selectFrom('conversion_reviews as r').where('r.project_id', '=', projectId);
    if (filters.status === 'open') matching = matching.where(sql<boolean>`r.decided_at IS NULL`);
    if (filters.status === 'decided') matching = matching.where(sql<boolean>`r.decided_at IS NOT NULL`);
    if (filters.user !== undefined) {
      matching = matching.where('r.identifier_type', '=', filters.user.identifierType).where('r.identifier', '=', filters.user.identifier);
    }
    if (filters.rule !== undefined) matching = matching.where(sql<boolean>`r.rules @> ${JSON.stringify([{ rule: filters.rule }])}::jsonb`);
    const { records, total } = await readPage(
      matching,
      (query) =>
        query
          .select(['r.conversion_id', 'r.identifier_type', 'r.identifier', 'r.rules', 'r.flagged_at', 'r.decided_at', 'r.decision'])
          .orderBy('r.flagged_at', 'desc')
          .orderBy('r.conversion_id', 'desc'),
      page,
    );
    return {
      total,
      records: records.map((row) => ({
        conversionId: row.conversion_id,
        user: { identifierType: row.identifier_type, identifier: row.identifier },
        rules: (row.rules as StoredRule[]).map((rule) => ({ rule: rule.rule, limit: BigInt(rule.limit), actual: BigInt(rule.actual) })),
        flaggedAt: row.flagged_at,
        decidedAt: row.decided_at,
        decision: row.decision,
      })),
    };
  }
}

function storedRule(rule: BrokenRule): StoredRule {
  return { rule: rule.rule, limit: rule.limit.toString(), actual: rule.actual.toString() };
}

/**
 * Flags the conversions in one statement; one flagged before keeps its first rules. Answers the ids newly
 * flagged. Takes the caller's connection: the payment path writes the rows in its transaction
 * (LedgerRepository.record), so a conversion is in the queue exactly when its movements wait for review.
 */
export async function flagConversions(
  db: Kysely<ClaimDatabase>,
  projectId: string,
  reviews: readonly NewConversionReview[],
  now: Date,
): Promise<Set<string>> {
  if (reviews.length === 0) return new Set();
  const rows = await db
    .insertInto('conversion_reviews')
    .values(
      reviews.map((review) => ({
        project_id: projectId,
        conversion_id: review.conversionId,
        identifier_type: review.user.identifierType,
        identifier: review.user.identifier,
        rules: JSON.stringify(review.rules.map(storedRule)),
        flagged_at: now,
      })),
    )
    .onConflict((conflict) => conflict.columns(['project_id', 'conversion_id']).doNothing())
    .returning('conversion_id')
    .execute();
  return new Set(rows.map((row) => row.conversion_id));
}

/**
 * Records the decision of open reviews; one already decided keeps its decision. Answers the ids decided
 * now. Takes the caller's connection: approve and decline decide the rows in the transaction that decides
 * the movements (MovementStatusRepository.decide).
 */
export async function decideReviews(
  db: Kysely<ClaimDatabase>,
  projectId: string,
  conversionIds: readonly string[],
  decision: ReviewDecision,
  now: Date,
): Promise<Set<string>> {
  if (conversionIds.length === 0) return new Set();
  const rows = await db
    .updateTable('conversion_reviews')
    .set({ decision, decided_at: now })
    .where('project_id', '=', projectId)
    .where('conversion_id', 'in', [...conversionIds])
    .where('decided_at', 'is', null)
    .returning('conversion_id')
    .execute();
  return new Set(rows.map((row) => row.conversion_id));
}
