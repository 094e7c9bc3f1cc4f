import { type Kysely, sql } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import type { AgencyDatabase } from '../database';
import { lockAffiliate } from './affiliate-lock';

export interface TierProtectionRecord {
  tierId: string;
  startsAt: Date;
  expiresAt: Date;
}

export type SetProtectionOutcome = 'set' | 'no_affiliate';
export type EndProtectionOutcome = 'ended' | 'no_affiliate' | 'none_in_force';

/**
 * Tier protection periods (specification §2.9). A protection is in force at t when
 * starts_at <= t < least(expires_at, ended_at); a new one ends the one before, so at most one is
 * open per affiliate (a unique index), and every past one stays for attribution at its moments.
 */
export class TierProtectionRepository {
  constructor(private readonly db: Kysely<AgencyDatabase>) {}

  async set(
    projectId: string,
    user: UserIdentifier,
    tierId: string,
    expiresAt: Date,
    actorId: string | null,
    now: Date,
  ): Promise<SetProtectionOutcome> {
    return this.db.transaction().execute(async (trx) => {
      // The affiliate's row lock makes "end the open one, insert the next" one step under concurrent calls.
      const affiliate = await lockAffiliate(trx, projectId, user);
      if (!affiliate) return 'no_affiliate';
      await trx
        .updateTable('tier_protections')
        .set({ ended_at: sql<Date>`greatest(${now}::timestamptz, starts_at)`, ended_by: actorId })
        .where('affiliate_id', '=', affiliate.id)
        .where('ended_at', 'is', null)
        .execute();
      await trx
        .insertInto('tier_protections')
        .values({ project_id: projectId, affiliate_id: affiliate.id, tier_id: tierId, starts_at: now, expires_at: expiresAt, set_by: actorId })
        .execute();
      await trx.updateTable('affiliates').set({ updated_at: now }).where('id', '=', affiliate.id).execute();
      return 'set';
    });
  }

  /** Ends the protection in force now; one that has already expired is only closed. */
  async end(projectId: string, user: UserIdentifier, actorId: string | null, now: Date): Promise<EndProtectionOutcome> {
    return this.db.transaction().execute(async (trx) => {
      const affiliate = await lockAffiliate(trx, projectId, user);
      if (!affiliate) return 'no_affiliate';
      const ended = await trx
        .updateTable('tier_protections')
        .set({ ended_at: sql<Date>`greatest(${now}::timestamptz, starts_at)`, ended_by: actorId })
        .where('affiliate_id', '=', affiliate.id)
        .where('ended_at', 'is', null)
        .returning('expires_at')
        .executeTakeFirst();
      if (!ended || ended.expires_at <= now) return 'none_in_force';
      await trx.updateTable('affiliates').set({ updated_at: now }).where('id', '=', affiliate.id).execute();
      return 'ended';
    });
  }

  /** The protection of each affiliate in force at `at`, if any; one query for all. */
  async inForce(affiliateIds: readonly string[], at: Date): Promise<Map<string, TierProtectionRecord>> {
    const found = new Map<string, TierProtectionRecord>();
    if (affiliateIds.length === 0) return found;
    const rows = await this.db
      .selectFrom('tier_protections')
      .select(['affiliate_id', 'tier_id', 'starts_at', 'expires_at'])
      .where('affiliate_id', 'in', affiliateIds)
      .where('starts_at', '<=', at)
      .where('expires_at', '>', at)
      .where((eb) => eb.or([eb('ended_at', 'is', null), eb('ended_at', '>', at)]))
      .orderBy('starts_at')
      .execute();
    // Periods of one affiliate do not overlap; were a clock to make them, the latest wins.
    for (const row of rows) found.set(row.affiliate_id, { tierId: row.tier_id, startsAt: row.starts_at, expiresAt: row.expires_at });
    return found;
  }
}
