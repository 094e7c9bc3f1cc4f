import type { Kysely } from 'kysely';
import { joinOutboxRelayState, splitOutboxRelayState } from '../../platform/outbox/tables';

/** The outbox relay's state out of the event rows: pending events and relay rounds in tables of their own (outbox/tables.ts). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await splitOutboxRelayState(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await joinOutboxRelayState(db);
}
