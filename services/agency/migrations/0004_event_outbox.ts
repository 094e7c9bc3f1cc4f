import type { Kysely } from 'kysely';
import { createOutboxTables, dropOutboxTables } from '../../platform/outbox/tables';

/** The events the agency produces (approved applications) and the record of those it consumes (audience entries). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await createOutboxTables(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await dropOutboxTables(db);
}
