import { type Kysely, sql } from 'kysely';

/**
 * A master's sub-affiliates include former ones (`bound: false`, so the sums over the list equal the
 * master's figures), and its history lists every binding and unbinding: both read all of the
 * master's bindings, closed ones too, which the partial index of open bindings does not cover.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX sub_affiliate_bindings_master_all_idx ON sub_affiliate_bindings (master_id, affiliate_id, bound_from)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX sub_affiliate_bindings_master_all_idx`.execute(db);
}
