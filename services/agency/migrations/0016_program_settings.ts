import { type Kysely, sql } from 'kysely';

/**
 * A project's affiliate program settings, kept by the agency beside the affiliates and codes the
 * referral links are made of (services/rules/referral-link.ts): the program URL (where a referred
 * person lands) and the link template (null: the default, `{program_url}?af={code}`). No row: the
 * project never set them (no program URL, the default template).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE program_settings (
      project_id uuid PRIMARY KEY,
      program_url text,
      link_template text,
      updated_at timestamptz NOT NULL,
      updated_by text
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE program_settings`.execute(db);
}
