import { type Kysely, sql } from 'kysely';

/**
 * `end_users` is every user the affiliate referred (specification §2.9: "total unique users brought
 * in"), whether or not they converted; until now it counted only the referred users with a
 * conversion, which is kept as `converting_users`.
 *
 * `end_users` is kept in the transaction that writes a user's first referral (referrals' primary
 * key makes it once per user: ReferralRepository.refer), `converting_users` by the metrics consumer
 * as `end_users` was. The list's sorts and filters keep reading `end_users` through the same indexes
 * and its copies on affiliate_filter_entries (the 0008 trigger follows this UPDATE).
 *
 * Backfill: every existing row gets its converting count from the old figure and its end users
 * counted from `referrals` (index referrals_affiliate_code_idx).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE affiliate_metrics ADD COLUMN converting_users bigint NOT NULL DEFAULT 0`.execute(db);
  await sql`
    UPDATE affiliate_metrics m
    SET converting_users = m.end_users,
        end_users = (SELECT count(*) FROM referrals r WHERE r.affiliate_id = m.affiliate_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE affiliate_metrics SET end_users = converting_users`.execute(db);
  await sql`ALTER TABLE affiliate_metrics DROP COLUMN converting_users`.execute(db);
}
