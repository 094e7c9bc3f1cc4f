import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { NewOutboxEvent } from './event';
import type { OutboxTables } from './tables';

/**
 * Writes events to the service's outbox inside the caller's transaction: they exist exactly when
 * the change they describe was committed. After the commit, wake the relay (OutboxRelay.wake) so
 * they leave at once; its periodic pass finds them otherwise. Returns the events' ids, in order.
 */
export async function appendOutboxEvents<DB extends OutboxTables>(trx: Transaction<DB>, now: Date, events: readonly NewOutboxEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = events.map((event) => ({
    id: event.id ?? randomUUID(),
    type: event.type,
    project_id: event.projectId,
    payload: JSON.stringify(event.payload),
    created_at: now,
  }));
  await (trx as unknown as Kysely<OutboxTables>).insertInto('outbox').values(rows).execute();
  return rows.map((row) => row.id);
}
