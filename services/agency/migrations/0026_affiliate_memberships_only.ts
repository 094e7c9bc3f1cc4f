import { type Kysely, sql } from 'kysely';

/**
 * The membership projection keeps the project's affiliates only (membership.repository.ts, issue 27
 * §3): the rows of users that are no affiliate go. Every reader joins the projection on an affiliate,
 * so no answer changes; an affiliate created later gets its memberships from the audience service's
 * audience.memberships.published.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    DELETE FROM audience_memberships am
    WHERE NOT EXISTS (
      SELECT 1 FROM affiliates a WHERE a.project_id = am.project_id AND a.identifier_type = am.identifier_type AND a.identifier = am.identifier
    )`.execute(db);
}

/** Nothing to undo: the rows of non-affiliates were read by nothing, and the older code keeps working without them. */
export async function down(): Promise<void> {}
