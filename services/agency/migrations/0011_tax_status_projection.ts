import { type Kysely, sql } from 'kysely';

/**
 * The tax status projection: the affiliate list reads each item's tax_status from these
 * tables, in its page statement, instead of calling the tax service for every page. Fed by the tax
 * service's events (jobs/tax-statuses.consumer.ts); the status a reader sees is computed at read
 * time by the rule both services share (services/rules/tax-status-rule.ts), so an approved W-8
 * past expires_at reads `expired` before any event says so.
 *
 * - `tax_statuses`: per user of a project, its current tax record's status and expires_at, with
 *   the version of the change that set them (the tax service's history row id): an older change
 *   arriving late never overwrites a newer one. No row: the user has no record.
 * - `tax_requirements`: per project, require_tax_info and the version of the settings write that
 *   set it. No row: the project never wrote its settings (the default: not required).
 *
 * Records and settings written before these events existed reach these tables through the tax
 * migration 0004_publish_tax_statuses, which writes their current state into the tax outbox (this
 * migration cannot read the tax schema).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE tax_statuses (
      project_id uuid NOT NULL,
      identifier_type text NOT NULL,
      identifier text NOT NULL,
      status text NOT NULL CHECK (status IN ('submitted', 'approved', 'revoked', 'expired')),
      expires_at timestamptz,
      version bigint NOT NULL,
      PRIMARY KEY (project_id, identifier_type, identifier)
    )`.execute(db);
  await sql`
    CREATE TABLE tax_requirements (
      project_id uuid PRIMARY KEY,
      require_tax_info boolean NOT NULL,
      version bigint NOT NULL
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE tax_requirements, tax_statuses`.execute(db);
}
