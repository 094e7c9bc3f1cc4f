import type { Clock } from '../../platform/clock';
import type { OutboxWaker } from '../../platform/outbox/relay';
import { decodeCursor, encodeCursor, type Page } from '../../rules/pagination';
import { AlreadyExistsError, NotFoundError } from '../../rules/errors';
import { canonical, IDENTIFIER_TYPES, identifierViolations, normalizeIdentifier, type UserIdentifier } from '../../rules/identifiers';
import type { EntryKey, EntryRecord, EntryRepository } from '../repositories/entry.repository';
import type { SegmentRepository } from '../repositories/segment.repository';
import { requireSegment, requireSegmentExists, segmentNotFound } from './segment-lookup';

export interface EntryPage {
  records: EntryRecord[];
  total: number;
  page: number;
  pageSize: number;
  nextCursor: string | null;
}

interface CursorPayload {
  /** The page the cursor leads to, so `page` stays meaningful when walking by cursor. */
  p: number;
  a: string;
  t: string;
  i: string;
}

function isCursorPayload(value: unknown): value is CursorPayload {
  const v = value as CursorPayload;
  return (
    typeof v === 'object' &&
    v !== null &&
    Number.isInteger(v.p) &&
    v.p > 1 &&
    typeof v.a === 'string' &&
    !Number.isNaN(Date.parse(v.a)) &&
    typeof v.t === 'string' &&
    typeof v.i === 'string'
  );
}

export class EntryService {
  constructor(
    private readonly segments: SegmentRepository,
    private readonly entries: EntryRepository,
    private readonly clock: Clock,
    private readonly outbox: OutboxWaker,
  ) {}

  /** The dashboard add: unlike the batch endpoint, a user already present is a conflict. */
  async add(projectId: string, segmentId: string, identifier: string, identifierType: string): Promise<EntryRecord> {
    const user = normalizeIdentifier(identifier, identifierType);
    await requireSegmentExists(this.segments, projectId, segmentId);
    const result = await this.entries.insertOne({ id: segmentId, projectId }, user, 'dashboard', this.clock.now());
    if (result === 'no_segment') throw segmentNotFound();
    if (result === 'exists') throw new AlreadyExistsError('AUDIENCE_ENTRY_EXISTS', 'user is already in this audience');
    this.outbox.wake();
    return result;
  }

  /**
   * Newest first. Offset pages for browsing; cursors for walking millions of entries. With a
   * prefix (the dashboard's search), only identifiers starting with it, counted for the total.
   */
  async list(projectId: string, segmentId: string, page: Page, cursor: string | undefined, identifierPrefix?: string): Promise<EntryPage> {
    const segment = await requireSegment(this.segments, projectId, segmentId);
    const total = identifierPrefix ? await this.entries.countWithPrefix(segmentId, identifierPrefix) : Number(segment.entriesCount);
    let pageNumber = page.page;
    let records: EntryRecord[];
    if (cursor) {
      const position = decodeCursor(cursor, isCursorPayload);
      pageNumber = position.p;
      const after: EntryKey = { addedAt: new Date(position.a), identifierType: position.t, identifier: position.i };
      records = await this.entries.list(segmentId, { limit: page.pageSize, after }, identifierPrefix);
    } else {
      records = await this.entries.list(segmentId, { limit: page.pageSize, offset: page.offset }, identifierPrefix);
    }
    const last = records[records.length - 1];
    const hasMore = records.length === page.pageSize && pageNumber * page.pageSize < total;
    const nextCursor =
      hasMore && last
        ? encodeCursor({ p: pageNumber + 1, a: last.addedAt.toISOString(), t: last.identifierType, i: last.identifier } satisfies CursorPayload)
        : null;
    return { records, total, page: pageNumber, pageSize: page.pageSize, nextCursor };
  }

  /**
   * Removes a user from the segment. Without a type, every type under which the identifier is
   * valid is tried (an evm address in any letter case is one user).
   */
  async remove(projectId: string, segmentId: string, identifier: string, identifierType: string | undefined): Promise<number> {
    const forms: UserIdentifier[] =
      identifierType !== undefined
        ? [normalizeIdentifier(identifier, identifierType, '')]
        : IDENTIFIER_TYPES.filter((type) => identifierViolations(identifier, type).length === 0).map((type) => canonical(identifier, type));
    await requireSegmentExists(this.segments, projectId, segmentId);
    const removed = await this.entries.deleteUser({ id: segmentId, projectId }, forms, this.clock.now());
    if (removed === 0) throw new NotFoundError('AUDIENCE_ENTRY_NOT_FOUND', 'user is not in this audience');
    this.outbox.wake();
    return removed;
  }
}
