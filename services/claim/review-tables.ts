import type { ColumnType } from 'kysely';
import type { IdentifierType } from '../rules/identifiers';
import type { OptionalNullable } from '../platform/db/column-types';
import type { ReviewDecision } from './domain/vocabulary';

/** The review rules' tables (migration 0011; docs/claims.md#review-rules), part of ClaimDatabase. */
export interface ReviewTables {
  review_settings: ReviewSettingsTable;
  conversion_reviews: ConversionReviewTable;
}

/** A project's review limits, each null while its rule is off. */
export interface ReviewSettingsTable {
  project_id: string;
  max_conversions_per_user_per_hour: number | null;
  min_seconds_from_referral_to_conversion: number | null;
  /** NUMERIC(78,0): base units of the conversion's currency. */
  max_reward_per_conversion: ColumnType<bigint | null, bigint | null, bigint | null>;
  created_at: Date;
  updated_at: Date;
}

/** One flagged conversion: the rules it broke (JSON `[{rule, limit, actual}]`), and the decision once made. */
export interface ConversionReviewTable {
  project_id: string;
  conversion_id: string;
  identifier_type: IdentifierType;
  identifier: string;
  rules: ColumnType<unknown, string, string>;
  flagged_at: Date;
  decided_at: OptionalNullable<Date>;
  decision: OptionalNullable<ReviewDecision>;
}
