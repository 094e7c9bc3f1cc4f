import type { NewOutboxEvent } from '../../platform/outbox/event';
import type { IdentifierType } from '../../rules/identifiers';
import type { EntryKind } from '../domain/vocabulary';

/**
 * The event that tells other services (the agency's membership projection) which users entered or
 * left one segment in one change: written in the same transaction as the change
 * (services/platform/events/contracts.ts has its shape).
 */
export function entriesEvent(
  type: 'audience.entry_added' | 'audience.entry_removed',
  segment: { project_id: string; segment_id: string },
  kind: EntryKind,
  users: ReadonlyArray<{ identifier: string; identifier_type: IdentifierType }>,
): NewOutboxEvent {
  return {
    type,
    projectId: segment.project_id,
    payload: {
      segment_id: segment.segment_id,
      kind,
      users: users.map((user) => ({ identifier: user.identifier, identifier_type: user.identifier_type })),
    },
  };
}
