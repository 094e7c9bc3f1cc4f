import type { Kysely } from 'kysely';
import { createOutboxTables, dropOutboxTables } from '../../platform/outbox/tables';

/** The events the audience service produces (entries added and removed) and the record of those it consumes. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await createOutboxTables(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await dropOutboxTables(db);
}
