import type { Transaction } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import { appendOutboxEvents } from '../../platform/outbox/append';
import type { TaxDatabase } from '../database';
import type { Actor } from '../domain/tax-record';
import type { RecordStatus } from '../domain/vocabulary';

/** One change of a record's status. `from` may be 'not_submitted' (a first submission). */
export interface StatusEvent {
  recordId: string;
  projectId: string;
  user: UserIdentifier;
  from: RecordStatus | 'not_submitted';
  to: RecordStatus;
  reason?: string | null;
  actor: Actor;
  at: Date;
  /** The record's expires_at after the change (announced, so a projection answers an approved W-8's expiry by itself). */
  expiresAt: Date | null;
}

/**
 * The status history: written only inside the transaction of the transition it records
 * (tax-transition.repository.ts), so a change and its history row commit together. At most one
 * row per (record, status reached): a repeated write (a sweep run twice) records nothing twice.
 * Each row written is announced in the same transaction (tax.tax_status.changed): statuses, the
 * user, the record's expires_at and the row's id as the change's version; never a form field or a
 * tax id. Returns how many were written.
 */
export async function recordStatusEvents(trx: Transaction<TaxDatabase>, events: StatusEvent[], now: Date): Promise<number> {
  if (events.length === 0) return 0;
  const written = await trx
    .insertInto('tax_status_events')
    .values(
      events.map((event) => ({
        record_id: event.recordId,
        project_id: event.projectId,
        identifier_type: event.user.identifierType,
        identifier: event.user.identifier,
        from_status: event.from,
        to_status: event.to,
        reason: event.reason ?? null,
        actor_type: event.actor.type,
        actor_id: event.actor.id,
        occurred_at: event.at,
      })),
    )
    .onConflict((conflict) => conflict.columns(['record_id', 'to_status']).doNothing())
    .returning(['id', 'record_id', 'project_id', 'identifier_type', 'identifier', 'from_status', 'to_status', 'occurred_at'])
    .execute();
  const expiresAt = new Map(events.map((event) => [`${event.recordId}:${event.to}`, event.expiresAt]));
  await appendOutboxEvents(
    trx,
    now,
    written.map((row) => ({
      type: 'tax.tax_status.changed' as const,
      projectId: row.project_id,
      payload: {
        project_id: row.project_id,
        user: { identifier: row.identifier, identifier_type: row.identifier_type },
        from: row.from_status as StatusEvent['from'],
        to: row.to_status,
        changed_at: row.occurred_at.toISOString(),
        expires_at: expiresAt.get(`${row.record_id}:${row.to_status}`)?.toISOString() ?? null,
        // The history row's id: rows of one user are written in the order of its changes (they take turns on its record's lock).
        version: String(row.id),
      },
    })),
  );
  return written.length;
}
