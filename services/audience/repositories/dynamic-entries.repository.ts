import { type Kysely, sql, type Transaction } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import type { AudienceDatabase } from '../database';
import type { Condition } from '../domain/condition';
import { compileCondition, usersFilter } from './condition-sql';

/** What one matching pass did to a segment's dynamic entries. */
export interface MatchOutcome {
  /** Users the condition matches (among those looked at), static entries included. */
  matched: number;
  added: number;
  removed: number;
}

/** Users per audience.entry_added / entry_removed event a matching pass writes. */
export const USERS_PER_EVENT = 1_000;

/**
 * Brings a segment's dynamic entries in line with its condition, in ONE statement: users the
 * condition matches enter as dynamic (source 'condition'; a user already in, static or dynamic,
 * is left as it is), dynamic entries of users it no longer matches leave, static entries are
 * never touched; the segment's count follows and the audience.entry_added / entry_removed events
 * (USERS_PER_EVENT users each) are written to the outbox (pending relay, by its trigger), all in the same statement.
 * Restricted to `users` when given (incremental matching): the others are not looked at.
 */
export async function matchSegment(
  trx: Transaction<AudienceDatabase> | Kysely<AudienceDatabase>,
  segment: { id: string; projectId: string },
  condition: Condition | null,
  at: { now: Date; today: string },
  users?: readonly UserIdentifier[],
): Promise<MatchOutcome> {
  const matched = compileCondition(condition, { projectId: segment.projectId, today: at.today, users });
  const event = (type: string, from: string) => sql`
    INSERT INTO outbox (id, type, project_id, payload, created_at)
    SELECT gen_random_uuid(), ${type}, ${segment.projectId}::uuid,
           jsonb_build_object('segment_id', ${segment.id}::text, 'kind', 'dynamic',
             'users', jsonb_agg(jsonb_build_object('identifier', c.identifier, 'identifier_type', c.identifier_type))),
           ${at.now}::timestamptz
    FROM (SELECT identifier, identifier_type, (row_number() OVER () - 1) / ${USERS_PER_EVENT} AS chunk FROM ${sql.table(from)}) c
    GROUP BY c.chunk`;
  // Raw: data-modifying CTEs (DELETE, INSERT ... ON CONFLICT, UPDATE and the outbox inserts) over a
  // compiled SELECT have no builder form. They see one snapshot; removed and added are disjoint.
  const { rows } = await sql<{ matched: string; added: string; removed: string }>`
    WITH matched AS MATERIALIZED (${matched}),
    removed AS (
      DELETE FROM entries e
      WHERE e.segment_id = ${segment.id} AND e.kind = 'dynamic' ${usersFilter('e', users)}
        AND NOT EXISTS (SELECT 1 FROM matched x WHERE x.identifier_type = e.identifier_type AND x.identifier = e.identifier)
      RETURNING e.identifier_type, e.identifier
    ),
    added AS (
      INSERT INTO entries (segment_id, project_id, identifier_type, identifier, kind, source, added_at)
      SELECT ${segment.id}, ${segment.projectId}, x.identifier_type, x.identifier, 'dynamic', 'condition', ${at.now}::timestamptz
      FROM matched x
      ON CONFLICT DO NOTHING
      RETURNING identifier_type, identifier
    ),
    counts AS (
      SELECT (SELECT count(*) FROM added) AS added, (SELECT count(*) FROM removed) AS removed
    ),
    counted AS (
      UPDATE segments s SET entries_count = s.entries_count + c.added - c.removed
      FROM counts c
      WHERE s.id = ${segment.id} AND (c.added > 0 OR c.removed > 0)
    ),
    added_events AS (${event('audience.entry_added', 'added')}),
    removed_events AS (${event('audience.entry_removed', 'removed')})
    SELECT (SELECT count(*) FROM matched)::text AS matched, c.added::text AS added, c.removed::text AS removed FROM counts c`.execute(trx);
  const row = rows[0]!;
  return { matched: Number(row.matched), added: Number(row.added), removed: Number(row.removed) };
}

/**
 * Waits (inside the caller's transaction) until no other matching pass of the segment runs: full
 * and incremental passes of one segment take turns, each seeing what the one before committed.
 */
export async function lockSegmentMatching(trx: Transaction<AudienceDatabase>, segmentId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`audience.segment-matching:${segmentId}`}, 0))`.execute(trx);
}
