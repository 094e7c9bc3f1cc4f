import { type Kysely, sql } from 'kysely';

/**
 * The agency service keeps a projection of tax statuses (its migration 0011_tax_status_projection)
 * so that its affiliate list answers tax_status without calling this service. It is fed by events,
 * and what existed before this migration has none it can read (older tax.tax_status.changed events
 * carry no expires_at and no order), while the agency cannot read this schema. So, as the audience
 * service's 0008_publish_segment_tiers does for tiers, this migration writes into this service's
 * own outbox the state as it is now:
 *
 * - tax_settings gets `version` (1 for every existing row; each later write counts it up), and one
 *   tax.tax_settings.changed per project that has settings;
 * - one tax.tax_statuses.published per 1,000 current records of a project: each record's status,
 *   expires_at and, as its version, the id of its latest history row (a later change writes a
 *   higher one, so it wins over this in the projection whatever order they arrive in).
 *
 * The relay delivers them like any other event; the agency applies each once. Runs once, as every
 * migration does; a new deployment has no records yet and writes nothing.
 */
const UTC_ISO = 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tax_settings ADD COLUMN version bigint NOT NULL DEFAULT 1`.execute(db);
  await publishTaxState(db);
}

/** The events of the state as it is now (the migration's second step; exported for its test). */
export async function publishTaxState(db: Kysely<unknown>): Promise<void> {
  await sql`
    INSERT INTO outbox (id, type, project_id, payload, created_at)
    SELECT gen_random_uuid(), 'tax.tax_settings.changed', s.project_id,
           jsonb_build_object('project_id', s.project_id, 'require_tax_info', s.require_tax_info, 'version', s.version::text,
                              'changed_at', to_char(s.updated_at AT TIME ZONE 'UTC', ${sql.lit(UTC_ISO)})),
           now()
    FROM tax_settings s
    ORDER BY s.updated_at, s.project_id`.execute(db);
  await sql`
    WITH current_records AS (
      SELECT r.project_id, r.identifier_type, r.identifier, r.status, r.expires_at,
             (SELECT coalesce(max(e.id), 0) FROM tax_status_events e WHERE e.record_id = r.id) AS version,
             row_number() OVER (PARTITION BY r.project_id ORDER BY r.identifier_type, r.identifier) - 1 AS n
      FROM tax_records r
      WHERE r.superseded_at IS NULL AND r.quarantined_at IS NULL
    )
    INSERT INTO outbox (id, type, project_id, payload, created_at)
    SELECT gen_random_uuid(), 'tax.tax_statuses.published', c.project_id,
           jsonb_build_object('project_id', c.project_id, 'records', jsonb_agg(jsonb_build_object(
             'user', jsonb_build_object('identifier', c.identifier, 'identifier_type', c.identifier_type),
             'status', c.status,
             'expires_at', to_char(c.expires_at AT TIME ZONE 'UTC', ${sql.lit(UTC_ISO)}),
             'version', c.version::text) ORDER BY c.n)),
           now()
    FROM current_records c
    GROUP BY c.project_id, c.n / 1000
    ORDER BY c.project_id, c.n / 1000`.execute(db);
}

/** The events may have left already: nothing to take back but the column. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tax_settings DROP COLUMN version`.execute(db);
}
