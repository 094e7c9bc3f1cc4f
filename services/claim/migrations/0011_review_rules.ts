import { type Kysely, sql } from 'kysely';

/**
 * Review rules (docs/claims.md#review-rules): a project's limits, and the conversions that broke one.
 *
 * - `review_settings`: one row per project, each limit null while its rule is off. The reward limit is
 *   base units of the conversion's currency (NUMERIC(78,0)).
 * - `conversion_reviews`: one row per flagged conversion (the primary key: flagging it again changes
 *   nothing), the broken rules with their figures as JSON (`[{rule, limit, actual}]`, figures as decimal
 *   strings), the converting user (the list's user filter without a join), and the decision once made.
 *   The list reads it newest flagged first, open or decided apart.
 * - `conversions_user_time_idx`: the rule on conversions per user per hour counts a user's conversions
 *   in a window by this index, one range per conversion of a batch. Its columns never change after the
 *   insert, so paying a conversion stays a HOT update (0006).
 *
 * Numbered 0011: 0010 is the movement statuses' (another branch).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE review_settings (
      project_id uuid PRIMARY KEY,
      max_conversions_per_user_per_hour integer CHECK (max_conversions_per_user_per_hour BETWEEN 1 AND 1000000),
      min_seconds_from_referral_to_conversion integer CHECK (min_seconds_from_referral_to_conversion BETWEEN 0 AND 31536000),
      max_reward_per_conversion NUMERIC(78,0) CHECK (max_reward_per_conversion >= 0),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);
  await sql`
    CREATE TABLE conversion_reviews (
      project_id uuid NOT NULL,
      conversion_id text NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      rules jsonb NOT NULL CHECK (jsonb_typeof(rules) = 'array' AND jsonb_array_length(rules) > 0),
      flagged_at timestamptz NOT NULL,
      decided_at timestamptz,
      decision text CHECK (decision IN ('approved', 'declined')),
      PRIMARY KEY (project_id, conversion_id),
      CHECK ((decided_at IS NULL) = (decision IS NULL))
    )`.execute(db);
  await sql`CREATE INDEX conversion_reviews_list_idx ON conversion_reviews (project_id, (decided_at IS NULL), flagged_at DESC, conversion_id DESC)`.execute(
    db,
  );
  await sql`CREATE INDEX conversion_reviews_user_idx ON conversion_reviews (project_id, identifier_type, identifier, flagged_at DESC)`.execute(db);
  await sql`CREATE INDEX conversions_user_time_idx ON conversions (project_id, identifier_type, identifier, occurred_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX conversions_user_time_idx`.execute(db);
  await sql`DROP TABLE conversion_reviews, review_settings`.execute(db);
}
