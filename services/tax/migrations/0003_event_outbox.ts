import type { Kysely } from 'kysely';
import { createOutboxTables, dropOutboxTables } from '../../platform/outbox/tables';

/** The events the tax service produces (tax status changes, for project webhooks). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await createOutboxTables(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await dropOutboxTables(db);
}
