import { type Kysely, sql } from 'kysely';

/**
 * Points (docs/claims.md#points): a currency of type `point` lives on no chain and has no address, pays
 * whole units (decimals 0), and a project has at most one (the SDK's points calls name no currency, so
 * "the project's points" must be one currency).
 *
 * - `currencies.chain_id` and `address` become nullable, and are null exactly for a point currency.
 * - `currencies_point_key`: a partial unique index, one point currency per project.
 * - `point_balances`: per (project, currency, user) the points credited and taken back. Grown in the
 *   transaction that makes a point movement available, shrunk in the reversal's. A reversal takes back
 *   at most what a movement credited, so a balance never goes below zero (no debt, unlike money, whose
 *   voucher may be out before the reversal). `point_balances_top_idx` reads the project's top balances.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE currencies
      ALTER COLUMN chain_id DROP NOT NULL,
      ALTER COLUMN address DROP NOT NULL,
      DROP CONSTRAINT currencies_type_check,
      ADD CONSTRAINT currencies_type_check CHECK (type IN ('erc20', 'native', 'point')),
      ADD CONSTRAINT currencies_point_check CHECK (
        (type = 'point') = (chain_id IS NULL) AND (type = 'point') = (address IS NULL) AND (type <> 'point' OR decimals = 0)
      )`.execute(db);
  await sql`CREATE UNIQUE INDEX currencies_point_key ON currencies (project_id) WHERE type = 'point'`.execute(db);
  await sql`
    CREATE TABLE point_balances (
      project_id uuid NOT NULL,
      currency_id uuid NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      balance numeric(78,0) NOT NULL,
      credited numeric(78,0) NOT NULL CHECK (credited >= 0),
      taken_back numeric(78,0) NOT NULL CHECK (taken_back >= 0),
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (project_id, currency_id, identifier, identifier_type),
      FOREIGN KEY (project_id, currency_id) REFERENCES currencies (project_id, id),
      CHECK (balance = credited - taken_back),
      CHECK (balance >= 0)
    )`.execute(db);
  await sql`CREATE INDEX point_balances_top_idx ON point_balances (project_id, currency_id, balance DESC, identifier, identifier_type)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE point_balances`.execute(db);
  await sql`DROP INDEX currencies_point_key`.execute(db);
  await sql`
    ALTER TABLE currencies
      DROP CONSTRAINT currencies_point_check,
      DROP CONSTRAINT currencies_type_check,
      ADD CONSTRAINT currencies_type_check CHECK (type IN ('erc20', 'native')),
      ALTER COLUMN address SET NOT NULL,
      ALTER COLUMN chain_id SET NOT NULL`.execute(db);
}
