import { type Kysely, sql } from 'kysely';

/**
 * Audiences as allowlists (specification §1). Payout terms may name, per side, an audience whose
 * members alone earn that side's reward; a conversion keeps, per side, the audience it was checked
 * against and the answer, frozen when it is paid (as its attribution is), so later changes of
 * membership, terms or audiences rewrite nothing. The master's spread follows the affiliate's side.
 *
 * No index names the new columns, so paying a conversion stays a HOT update (0006); null columns
 * cost a conversion row nothing (the row's null bitmap already has room for them). The checks are
 * added NOT VALID and validated apart: existing rows hold nulls only, and the validation scans the
 * table without blocking writes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE payout_terms
      ADD COLUMN end_user_allowlist_audience_id uuid,
      ADD COLUMN affiliate_allowlist_audience_id uuid`.execute(db);
  await sql`
    ALTER TABLE conversions
      ADD COLUMN end_user_allowlist_audience_id uuid,
      ADD COLUMN end_user_eligible boolean,
      ADD COLUMN affiliate_allowlist_audience_id uuid,
      ADD COLUMN affiliate_eligible boolean,
      ADD CONSTRAINT conversions_end_user_eligibility_check
        CHECK ((end_user_allowlist_audience_id IS NULL) = (end_user_eligible IS NULL)) NOT VALID,
      ADD CONSTRAINT conversions_affiliate_eligibility_check
        CHECK ((affiliate_allowlist_audience_id IS NULL) = (affiliate_eligible IS NULL)) NOT VALID`.execute(db);
  await sql`ALTER TABLE conversions VALIDATE CONSTRAINT conversions_end_user_eligibility_check`.execute(db);
  await sql`ALTER TABLE conversions VALIDATE CONSTRAINT conversions_affiliate_eligibility_check`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE conversions
      DROP COLUMN end_user_allowlist_audience_id,
      DROP COLUMN end_user_eligible,
      DROP COLUMN affiliate_allowlist_audience_id,
      DROP COLUMN affiliate_eligible`.execute(db);
  await sql`ALTER TABLE payout_terms DROP COLUMN end_user_allowlist_audience_id, DROP COLUMN affiliate_allowlist_audience_id`.execute(db);
}
