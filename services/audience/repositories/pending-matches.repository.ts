import { type Kysely, sql, type Transaction } from 'kysely';
import type { IdentifierType, UserIdentifier } from '../../rules/identifiers';
import type { AudienceDatabase } from '../database';

type Executor = Kysely<AudienceDatabase> | Transaction<AudienceDatabase>;

const userKey = (user: UserIdentifier) => `${user.identifierType}\u0000${user.identifier}`;

/**
 * Records that `users` must be re-matched (migration 0007), INSIDE the caller's transaction, the one
 * that changed their traits or metrics: both commit or neither. A user already pending keeps its
 * earlier `changed_at`, so a burst of changes stays one pass. Users are written once each and in key
 * order, so two writers over the same users lock them in one order and never deadlock.
 */
export async function recordPendingMatches(
  trx: Transaction<AudienceDatabase>,
  projectId: string,
  users: readonly UserIdentifier[],
  changedAt: Date,
): Promise<void> {
  if (users.length === 0) return;
  const byKey = new Map(users.map((user) => [userKey(user), user]));
  const distinct = [...byKey.keys()].sort().map((key) => byKey.get(key)!);
  // Raw: an upsert over unnest'ed arrays (one parameter per column, whatever the number of users).
  await sql`
    INSERT INTO pending_matches AS p (project_id, identifier_type, identifier, changed_at)
    SELECT ${projectId}::uuid, u.identifier_type, u.identifier, ${changedAt}::timestamptz
    FROM unnest(${distinct.map((user) => user.identifierType)}::text[], ${distinct.map((user) => user.identifier)}::text[]) WITH ORDINALITY AS u(identifier_type, identifier, n)
    ORDER BY u.n
    ON CONFLICT (project_id, identifier_type, identifier) DO UPDATE SET changed_at = least(p.changed_at, excluded.changed_at)`.execute(trx);
}

/**
 * Claims (deletes) up to `limit` pending users of the project, oldest change first, INSIDE the
 * matching transaction: they are gone only if the match commits, and a rollback or a process dying
 * mid-pass leaves them for the next pass. Rows another pass claimed, or a writer is changing right
 * now, are skipped (SKIP LOCKED), never waited for.
 */
export async function claimPendingMatches(trx: Transaction<AudienceDatabase>, projectId: string, limit: number): Promise<UserIdentifier[]> {
  // Raw: DELETE of a locked, ordered, limited subquery, which the builder has no form for.
  const { rows } = await sql<{ identifier_type: IdentifierType; identifier: string }>`
    DELETE FROM pending_matches p
    WHERE p.project_id = ${projectId} AND (p.identifier_type, p.identifier) IN (
      SELECT identifier_type, identifier FROM pending_matches
      WHERE project_id = ${projectId}
      ORDER BY changed_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING p.identifier_type, p.identifier`.execute(trx);
  return rows.map((row) => ({ identifier: row.identifier, identifierType: row.identifier_type }));
}

/** What the drainer asks of the table to know what to do next. */
export class PendingMatchRepository {
  constructor(private readonly db: Executor) {}

  /** The project of the oldest pending user changed at or before `cutoff`, other than those `passed` over, if any. */
  async dueProject(cutoff: Date, passed: readonly string[]): Promise<string | undefined> {
    let due = this.db.selectFrom('pending_matches').select('project_id').where('changed_at', '<=', cutoff);
    if (passed.length > 0) due = due.where('project_id', 'not in', passed);
    const row = await due.orderBy('changed_at').limit(1).executeTakeFirst();
    return row?.project_id;
  }

  /** The earliest change pending after `after`: when the next pass is due. */
  async earliestAfter(after: Date): Promise<Date | undefined> {
    const row = await this.db
      .selectFrom('pending_matches')
      .select('changed_at')
      .where('changed_at', '>', after)
      .orderBy('changed_at')
      .limit(1)
      .executeTakeFirst();
    return row?.changed_at;
  }
}
