import { type Kysely, sql } from 'kysely';

/**
 * Each chain cursor keeps the hash of its chain's genesis block. A chain whose block 0 has another
 * hash now is another chain (a development chain restarted, a test network reset): the blocks the
 * cursor counted are not its blocks, so the watcher starts that cursor again (ChainWatcherService).
 * Cursors taken before this migration learn their genesis on their next run.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE chain_cursors ADD COLUMN genesis_hash text CHECK (genesis_hash ~ '^0x[0-9a-f]{64}$')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE chain_cursors DROP COLUMN genesis_hash`.execute(db);
}
