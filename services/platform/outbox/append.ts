import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { NewOutboxEvent } from './event';
import type { OutboxTables } from './tables';

/**
 * Writes events to the service's outbox inside the caller's transaction: they exist exactly when
 * the change they describe was committed. After the commit, wake the relay (OutboxRelay.wake) so
 * they leave at once; its periodic pass finds them otherwise. Returns the events' ids, in order.
 */
export async function appendOutboxEvents<DB extends OutboxTables>(
  trx: Transaction<DB>,
  now: Date,
  events: readonly NewOutboxEvent[],
): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = events.map((event) => ({ id: event.id ?? randomUUID(), type: event.type, project_id: event.projectId, payload: event.payload }));
  // The rows travel as ONE JSON document, unpacked by PostgreSQL in order: a conversion batch
  // appends 1,000 events, and five parameters per row cost more to build, send and parse than the insert.
  // Each event is pending until a relay round relays it (the outbox's trigger: tables.ts, splitOutboxRelayState).
  // Raw: an INSERT ... SELECT from jsonb_array_elements WITH ORDINALITY has no builder form.
  await sql`
    INSERT INTO outbox (id, type, project_id, payload, created_at)
    SELECT (e.row->>'id')::uuid, e.row->>'type', (e.row->>'project_id')::uuid, e.row->'payload', ${now}
    FROM jsonb_array_elements(${JSON.stringify(rows)}::jsonb) WITH ORDINALITY AS e(row, n)
    ORDER BY e.n`.execute(trx);
  return rows.map((row) => row.id);
}
