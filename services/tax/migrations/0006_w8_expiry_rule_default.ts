import { type Kysely, sql } from 'kysely';

/**
 * The W-8 expiry rule of the specification (§3.1, §8.1: an approved W-8 expires 3 years after its
 * approval) becomes the default, `three_years_from_approval`; the rules that count from the
 * signature date (`three_years`, `irs_calendar`) stay selectable. A project now either chose a rule
 * or follows the default: `tax_settings.w8_expiry_rule` holds the choice, and NULL means "the
 * default" (so a later default needs no migration). What this does to existing rows:
 *
 * - The column loses its NOT NULL and its DEFAULT 'three_years', and accepts the new value.
 * - Rows with 'irs_calendar' are kept as they are: the column's default never wrote that value, so
 *   the project chose it. These projects keep their rule.
 * - Rows with 'three_years' are set to NULL: they follow the new default from now on. The old
 *   column default wrote 'three_years' into the row of every project that changed any tax setting
 *   (turning require_tax_info on is enough), and nothing recorded whether a PATCH named the rule,
 *   so a chosen 'three_years' cannot be told from the default; the dashboard sent the rule only
 *   when an admin changed it, which leaves a chosen 'three_years' only to a switch back from
 *   'irs_calendar' or an API client naming it. Such a project sets it again (PATCH tax-settings
 *   `{"w8_expiry_rule": "three_years"}`), and is then marked as having chosen it.
 * - Projects without a row had the defaults, and follow the new one.
 * - Nothing else changes: no version, updated_at or event (the rule is not in the settings
 *   event), and no form: a rule applies when a form is approved, so every approved W-8 keeps the
 *   expires_at it was given. Approvals after this migration, in projects on the default, expire 3
 *   years after approval, never earlier than the signature-date rule would have said (a form is
 *   approved after it is signed).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE tax_settings
      ALTER COLUMN w8_expiry_rule DROP NOT NULL,
      ALTER COLUMN w8_expiry_rule DROP DEFAULT,
      DROP CONSTRAINT tax_settings_w8_expiry_rule_check,
      ADD CONSTRAINT tax_settings_w8_expiry_rule_check CHECK (w8_expiry_rule IN ('three_years_from_approval', 'three_years', 'irs_calendar'))
  `.execute(db);
  await sql`UPDATE tax_settings SET w8_expiry_rule = NULL WHERE w8_expiry_rule = 'three_years'`.execute(db);
}

/** Back to one stored rule per row: the default was 'three_years', which the rule from approval has no older equivalent of. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE tax_settings SET w8_expiry_rule = 'three_years' WHERE w8_expiry_rule IS NULL OR w8_expiry_rule = 'three_years_from_approval'`.execute(
    db,
  );
  await sql`
    ALTER TABLE tax_settings
      DROP CONSTRAINT tax_settings_w8_expiry_rule_check,
      ADD CONSTRAINT tax_settings_w8_expiry_rule_check CHECK (w8_expiry_rule IN ('three_years', 'irs_calendar')),
      ALTER COLUMN w8_expiry_rule SET DEFAULT 'three_years',
      ALTER COLUMN w8_expiry_rule SET NOT NULL
  `.execute(db);
}
