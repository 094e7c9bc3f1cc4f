import { type Kysely, sql } from 'kysely';

/**
 * What dynamic segments' conditions read: the audience service's own projection of the
 * claim and agency events, and the traits projects push. Per user and project, keyed by
 * (project_id, identifier_type, identifier) like entries.
 *
 * Metrics are kept twice: all-time totals (one row per user: a condition without `window_days` reads
 * one row per user, the common case over a million users) and per-day rows (a condition over the last
 * N days sums the days since). The consumer writes both in the transaction that records the event in
 * processed_events, so a redelivered event changes nothing. USD figures are NUMERIC, money NUMERIC(78,0).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // All-time figures of a user: its own conversions, and the users it referred (L1) with their volume.
  await sql`
    CREATE TABLE user_metrics (
      project_id uuid NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      volume_usd numeric NOT NULL DEFAULT 0,
      revenue_usd numeric NOT NULL DEFAULT 0,
      conversions bigint NOT NULL DEFAULT 0,
      referred_users bigint NOT NULL DEFAULT 0,
      referred_volume_usd numeric NOT NULL DEFAULT 0,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (project_id, identifier_type, identifier)
    )`.execute(db);

  // A user's own conversions per day and conversion name: windows, and conversions of one name.
  await sql`
    CREATE TABLE user_conversion_days (
      project_id uuid NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      name text NOT NULL,
      day date NOT NULL,
      conversions bigint NOT NULL DEFAULT 0,
      volume_usd numeric NOT NULL DEFAULT 0,
      revenue_usd numeric NOT NULL DEFAULT 0,
      PRIMARY KEY (project_id, identifier_type, identifier, name, day)
    )`.execute(db);
  await sql`CREATE INDEX user_conversion_days_project_day_idx ON user_conversion_days (project_id, day)`.execute(db);

  // Who a user referred, per day it referred them, and the volume of their conversions per day they happened.
  await sql`
    CREATE TABLE user_referral_days (
      project_id uuid NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      day date NOT NULL,
      referred_users bigint NOT NULL DEFAULT 0,
      referred_volume_usd numeric NOT NULL DEFAULT 0,
      PRIMARY KEY (project_id, identifier_type, identifier, day)
    )`.execute(db);
  await sql`CREATE INDEX user_referral_days_project_day_idx ON user_referral_days (project_id, day)`.execute(db);

  // What a user earned (affiliate, end-user and agency payouts alike), per currency and day.
  await sql`
    CREATE TABLE user_earning_days (
      project_id uuid NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      currency_id uuid NOT NULL,
      day date NOT NULL,
      amount numeric(78,0) NOT NULL DEFAULT 0 CHECK (amount >= 0),
      PRIMARY KEY (project_id, identifier_type, identifier, currency_id, day)
    )`.execute(db);
  await sql`CREATE INDEX user_earning_days_project_currency_idx ON user_earning_days (project_id, currency_id, day)`.execute(db);

  // Traits pushed by a project (POST /v1/user-traits/batch): the last write per user and name wins, by updated_at.
  await sql`
    CREATE TABLE user_traits (
      project_id uuid NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      name text NOT NULL,
      value jsonb NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (project_id, identifier_type, identifier, name)
    )`.execute(db);
  // A condition on one trait reads that trait's rows of the project alone.
  await sql`CREATE INDEX user_traits_project_name_idx ON user_traits (project_id, name) INCLUDE (value)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE user_traits, user_earning_days, user_referral_days, user_conversion_days, user_metrics`.execute(db);
}
