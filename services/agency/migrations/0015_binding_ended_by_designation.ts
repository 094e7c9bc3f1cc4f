import { type Kysely, sql } from 'kysely';

/**
 * Any existing affiliate can be designated a master (specification §2.11), a bound sub-affiliate
 * included: its binding is closed in the transaction that designates it (a master is never a
 * sub-affiliate). `ended_by_designation_id` names that designation on the binding it closed, so
 * both histories say why the binding ended (the sub-affiliate's `unbound_from_master` and the old
 * master's `sub_affiliate_unbound`, `became_master`; the new master's `master_designated`,
 * `unbound_from_master`). Null for every binding ended otherwise (an unbind, a master's removal).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE sub_affiliate_bindings ADD COLUMN ended_by_designation_id bigint REFERENCES agency_designations (id)`.execute(db);
  // The master_designated entry finds the binding its designation closed (at most one: an affiliate has at most one open binding).
  await sql`CREATE UNIQUE INDEX sub_affiliate_bindings_ended_by_designation_idx ON sub_affiliate_bindings (ended_by_designation_id) WHERE ended_by_designation_id IS NOT NULL`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE sub_affiliate_bindings DROP COLUMN ended_by_designation_id`.execute(db);
}
