import type { Transaction } from 'kysely';
import type { UserIdentifier } from '../../common/identifiers';
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
}

/**
 * The status history: written only inside the transaction of the transition it records
 * (tax-transition.repository.ts), so a change and its history row commit together. At most one
 * row per (record, status reached): a repeated write (a sweep run twice) records nothing twice.
 */
export async function recordStatusEvents(trx: Transaction<TaxDatabase>, events: StatusEvent[]): Promise<void> {
  if (events.length === 0) return;
  await trx
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
    .execute();
}
