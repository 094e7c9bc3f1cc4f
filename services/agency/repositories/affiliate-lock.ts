import type { Kysely, Transaction } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import type { AgencyDatabase } from '../database';
import type { AffiliateStatus } from '../domain/vocabulary';

/**
 * The affiliate's row lock (SELECT … FOR UPDATE), taken before a read-then-write on what hangs off
 * an affiliate (its codes, its tier protections, its status on approval, a master's designation
 * and bindings): concurrent writers for one affiliate run one after the other, so a count or an
 * "end the open one, insert the next" holds until the transaction commits. Every such write takes
 * it here, so they all lock the same row the same way. Finding an affiliate by its user without
 * a lock (findAffiliateId) is the same query.
 */

/** The user's affiliate row in the project, as every lookup of an affiliate by its user starts. */
function affiliateOfUser(db: Kysely<AgencyDatabase>, projectId: string, user: UserIdentifier) {
  return db
    .selectFrom('affiliates')
    .where('project_id', '=', projectId)
    .where('identifier_type', '=', user.identifierType)
    .where('identifier', '=', user.identifier);
}

/** The user's affiliate id in the project, without a lock; undefined when the user is no affiliate. */
export async function findAffiliateId(db: Kysely<AgencyDatabase>, projectId: string, user: UserIdentifier): Promise<string | undefined> {
  const row = await affiliateOfUser(db, projectId, user).select('id').executeTakeFirst();
  return row?.id;
}

/** Locks the user's affiliate row in the project; its id and status, or undefined when the user is no affiliate. */
export function lockAffiliate(
  trx: Transaction<AgencyDatabase>,
  projectId: string,
  user: UserIdentifier,
): Promise<{ id: string; status: AffiliateStatus } | undefined> {
  return affiliateOfUser(trx, projectId, user).select(['id', 'status']).forUpdate().executeTakeFirst();
}

/** Locks these affiliates' rows of the project, in id order, so two transactions locking several never wait on each other crosswise. */
export async function lockAffiliatesById(trx: Transaction<AgencyDatabase>, projectId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await trx.selectFrom('affiliates').select('id').where('project_id', '=', projectId).where('id', 'in', ids).orderBy('id').forUpdate().execute();
}
