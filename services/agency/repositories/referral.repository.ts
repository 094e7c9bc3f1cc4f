import { type Kysely, sql, type Transaction } from 'kysely';
import type { UserIdentifier } from '../../rules/identifiers';
import { appendOutboxEvents } from '../../platform/outbox/append';
import type { AgencyDatabase } from '../database';
import type { AffiliateStatus } from '../domain/vocabulary';
import { referralCreatedEvent } from './agency-events';
import { countReferredUser, lockProjectMetrics, uncountReferredUser } from './affiliate-metrics.repository';

export interface AffiliateRefRecord {
  id: string;
  user: UserIdentifier;
}

export interface ReferralRecord {
  user: UserIdentifier;
  affiliate: AffiliateRefRecord;
  code: string;
  referredAt: Date;
}

/** What a referral attempt found: the domain turns each into its answer. */
export type ReferralOutcome =
  | { kind: 'created'; referral: ReferralRecord }
  /** Referred already: by the code's own affiliate (sameAffiliate) or by another. */
  | { kind: 'existing'; referral: ReferralRecord; sameAffiliate: boolean }
  | { kind: 'no_code' }
  /** An invite code with no use left (max_uses reached, or 0: disabled). */
  | { kind: 'exhausted' }
  | { kind: 'self_referral'; affiliate: AffiliateRefRecord }
  /** The user is an affiliate above the code's affiliate in its referral chain: the referral would close a cycle. */
  | { kind: 'cycle'; affiliate: AffiliateRefRecord }
  | { kind: 'suspended'; affiliate: AffiliateRefRecord };

export interface ReferrerRecord {
  referral: ReferralRecord;
  name: string;
  /** Oldest first. */
  codes: string[];
  /** The user rebate rate (basis points) of the code the user was referred through; null: none. */
  referralCodeRebateRateBps: number | null;
}

/**
 * Who referred whom. The table's primary key (project, user) is the rule "first referral wins":
 * a second referral of a user finds the first one and changes nothing, whatever runs concurrently.
 */
export class ReferralRepository {
  constructor(private readonly db: Kysely<AgencyDatabase>) {}

  /**
   * Refers `user` with `code`. The code's affiliate is read FOR SHARE, so a suspension (which
   * updates that row) either lands before (and the code refers nobody) or after this referral.
   */
  async refer(projectId: string, user: UserIdentifier, code: string, now: Date): Promise<ReferralOutcome> {
    return this.db.transaction().execute(async (trx) => referWithin(trx, projectId, user, code, now));
  }

  /**
   * Ends the user's referral by `referrer` through `code` (any letter case): the row leaves `referrals`
   * (the user may be referred again, first wins again) and is kept in `ended_referrals` with who ended it.
   * Undefined when the user has no such referral. An invite code's use stays counted.
   */
  async end(
    projectId: string,
    user: UserIdentifier,
    match: { code: string; referrer: UserIdentifier },
    ending: { by: 'user' | 'admin'; actorId: string | null },
    now: Date,
  ): Promise<ReferralRecord | undefined> {
    return this.db.transaction().execute(async (trx) => {
      await lockProjectMetrics(trx, projectId, 'shared');
      const referrer = await trx
        .selectFrom('affiliates')
        .select(['id', 'identifier', 'identifier_type'])
        .where('project_id', '=', projectId)
        .where('identifier_type', '=', match.referrer.identifierType)
        .where('identifier', '=', match.referrer.identifier)
        .executeTakeFirst();
      if (!referrer) return undefined;
      const ended = await trx
        .deleteFrom('referrals')
        .where('project_id', '=', projectId)
        .where('identifier_type', '=', user.identifierType)
        .where('identifier', '=', user.identifier)
        .where('affiliate_id', '=', referrer.id)
        .where(sql`lower(code)`, '=', match.code.toLowerCase())
        .returningAll()
        .executeTakeFirst();
      if (!ended) return undefined;
      await trx
        .insertInto('ended_referrals')
        .values({ ...ended, ended_at: now, ended_by: ending.by, actor_api_key_id: ending.actorId })
        .execute();
      await uncountReferredUser(trx, projectId, referrer.id, now);
      return {
        user,
        affiliate: { id: referrer.id, user: { identifier: referrer.identifier, identifierType: referrer.identifier_type } },
        code: ended.code,
        referredAt: ended.referred_at,
      };
    });
  }

  async findReferrer(projectId: string, user: UserIdentifier): Promise<ReferrerRecord | undefined> {
    const referral = await findReferral(this.db, projectId, user);
    if (!referral) return undefined;
    const [affiliate, codes] = await Promise.all([
      this.db.selectFrom('affiliates').select('name').where('id', '=', referral.affiliate.id).executeTakeFirstOrThrow(),
      this.db
        .selectFrom('affiliate_codes')
        .select(['code', 'user_rebate_rate_bps'])
        .where('affiliate_id', '=', referral.affiliate.id)
        .orderBy('id')
        .execute(),
    ]);
    // A referral keeps its code as registered, and codes are never renamed: the same text.
    const through = codes.find((row) => row.code === referral.code);
    return {
      referral,
      name: affiliate.name,
      codes: codes.map((row) => row.code),
      referralCodeRebateRateBps: through?.user_rebate_rate_bps ?? null,
    };
  }
}

/**
 * The referral rule inside a transaction the caller holds (the repository's own, or a tracking batch's:
 * services/agency/repositories/tracking.repository.ts), so a referral and what caused it commit together.
 */
export async function referWithin(
  trx: Transaction<AgencyDatabase>,
  projectId: string,
  user: UserIdentifier,
  code: string,
  now: Date,
  /** When the user was referred, if not now (a tracking batch processed after the wallet connected). */
  referredAt: Date = now,
): Promise<ReferralOutcome> {
  // The metrics projection's shared lock first (as its events take it): a referral's end user is
  // counted either wholly before a rebuild's recomputation or after it.
  await lockProjectMetrics(trx, projectId, 'shared');
  const holder = await findCodeHolder(trx, projectId, code);
  if (!holder) return { kind: 'no_code' };
  const affiliate: AffiliateRefRecord = { id: holder.id, user: { identifier: holder.identifier, identifierType: holder.identifier_type } };
  if (holder.identifier === user.identifier && holder.identifier_type === user.identifierType) return { kind: 'self_referral', affiliate };

  if ((holder.status satisfies AffiliateStatus) === 'active') {
    if (await closesCycle(trx, projectId, user, holder.id)) {
      // Referred already: that answer stands (nothing is written either way); otherwise the cycle is the refusal.
      const existing = await findReferral(trx, projectId, user);
      if (existing) return { kind: 'existing', referral: existing, sameAffiliate: existing.affiliate.id === holder.id };
      return { kind: 'cycle', affiliate };
    }
    const inserted = await trx
      .insertInto('referrals')
      .values({
        project_id: projectId,
        identifier_type: user.identifierType,
        identifier: user.identifier,
        affiliate_id: holder.id,
        code: holder.code,
        referred_at: referredAt,
      })
      .onConflict((oc) => oc.columns(['project_id', 'identifier_type', 'identifier']).doNothing())
      .returning('referred_at')
      .executeTakeFirst();
    if (inserted) {
      // An invite code's use is taken only by a referral that is written: one conditional UPDATE, whose
      // row lock makes concurrent uses of the last slot give exactly one success. None left: the referral
      // just written is taken back (no other transaction saw it; the caller's transaction goes on).
      if (holder.invite && !(await takeInviteUse(trx, projectId, holder.code, now))) {
        await trx
          .deleteFrom('referrals')
          .where('project_id', '=', projectId)
          .where('identifier_type', '=', user.identifierType)
          .where('identifier', '=', user.identifier)
          .execute();
        return { kind: 'exhausted' };
      }
      // One more end user of the affiliate (the list's end_users), counted exactly when the referral is written.
      await countReferredUser(trx, projectId, holder.id, now);
      // The audience's metrics (referred_users) learn of it from this event, which exists exactly when the referral does.
      await appendOutboxEvents(trx, now, [referralCreatedEvent({ projectId, user, affiliate, referredAt: inserted.referred_at })]);
      return { kind: 'created', referral: { user, affiliate, code: holder.code, referredAt: inserted.referred_at } };
    }
  }
  // Referred already (by this affiliate or another), or the code's affiliate is suspended.
  const existing = await findReferral(trx, projectId, user);
  if (existing) return { kind: 'existing', referral: existing, sameAffiliate: existing.affiliate.id === holder.id };
  return { kind: 'suspended', affiliate };
}

/**
 * Whether referring `user` by the affiliate `referrerId` would close a cycle of referral levels
 * (docs/claims.md#referral-levels): `user` is an affiliate, and it is `referrerId`'s referrer, or its
 * referrer's, at any depth. Only a user that is an affiliate can close one (a referral adds a link of
 * the affiliate chain only when the referred user is an affiliate), so only then is the chain walked,
 * under the project's referral-chain lock (pg_advisory_xact_lock, exclusive, held to commit): two
 * referrals that would together close a cycle (A's user by B while B's user by A) are checked one after
 * the other, the second seeing the first. Referrals of users that are no affiliate, the common case,
 * take no lock. The walk follows every referral in force now, whatever its affiliates' status.
 */
async function closesCycle(trx: Transaction<AgencyDatabase>, projectId: string, user: UserIdentifier, referrerId: string): Promise<boolean> {
  const referred = await trx
    .selectFrom('affiliates')
    .select('id')
    .where('project_id', '=', projectId)
    .where('identifier_type', '=', user.identifierType)
    .where('identifier', '=', user.identifier)
    .executeTakeFirst();
  if (!referred) return false;
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`referral-chain:${projectId}`}, 0))`.execute(trx);
  // Raw: a recursive walk up the chain (referrals of each affiliate's own user, by primary key); UNION stops at
  // an affiliate already met, so even a cycle written before this rule existed ends the walk.
  const { rows } = await sql<{ closes: boolean }>`
    WITH RECURSIVE up (id) AS (
      SELECT ${referrerId}::uuid
      UNION
      SELECT r.affiliate_id
      FROM up JOIN affiliates a ON a.id = up.id
      JOIN referrals r ON r.project_id = ${projectId} AND r.identifier_type = a.identifier_type AND r.identifier = a.identifier
    )
    SELECT EXISTS (SELECT 1 FROM up WHERE id = ${referred.id}::uuid) AS closes`.execute(trx);
  return rows[0]!.closes;
}

/**
 * The code's affiliate, read FOR SHARE: an affiliate code, else an invite code (one namespace of codes per
 * project, migration 0022, so at most one of the two matches).
 */
async function findCodeHolder(trx: Transaction<AgencyDatabase>, projectId: string, code: string) {
  const affiliateCode = await trx
    .selectFrom('affiliate_codes as c')
    .innerJoin('affiliates as a', 'a.id', 'c.affiliate_id')
    .select(['a.id', 'a.identifier', 'a.identifier_type', 'a.status', 'c.code'])
    .where('c.project_id', '=', projectId)
    .where(sql`lower(c.code)`, '=', code.toLowerCase())
    .forShare('a')
    .executeTakeFirst();
  if (affiliateCode) return { ...affiliateCode, invite: false };
  const inviteCode = await trx
    .selectFrom('invite_codes as c')
    .innerJoin('affiliates as a', 'a.id', 'c.affiliate_id')
    .select(['a.id', 'a.identifier', 'a.identifier_type', 'a.status', 'c.code'])
    .where('c.project_id', '=', projectId)
    .where(sql`lower(c.code)`, '=', code.toLowerCase())
    .forShare('a')
    .executeTakeFirst();
  return inviteCode && { ...inviteCode, invite: true };
}

/** One use of an invite code if it has one left; false when none is (max_uses reached, or 0). */
async function takeInviteUse(trx: Transaction<AgencyDatabase>, projectId: string, code: string, now: Date): Promise<boolean> {
  const taken = await trx
    .updateTable('invite_codes')
    .set({ uses: sql`uses + 1`, updated_at: now })
    .where('project_id', '=', projectId)
    .where(sql`lower(code)`, '=', code.toLowerCase())
    .where((eb) => eb.or([eb('max_uses', 'is', null), eb('uses', '<', eb.ref('max_uses'))]))
    .returning('uses')
    .executeTakeFirst();
  return taken !== undefined;
}

async function findReferral(db: Kysely<AgencyDatabase>, projectId: string, user: UserIdentifier): Promise<ReferralRecord | undefined> {
  const row = await db
    .selectFrom('referrals as r')
    .innerJoin('affiliates as a', 'a.id', 'r.affiliate_id')
    .select(['r.code', 'r.referred_at', 'a.id', 'a.identifier', 'a.identifier_type'])
    .where('r.project_id', '=', projectId)
    .where('r.identifier_type', '=', user.identifierType)
    .where('r.identifier', '=', user.identifier)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    user,
    affiliate: { id: row.id, user: { identifier: row.identifier, identifierType: row.identifier_type } },
    code: row.code,
    referredAt: row.referred_at,
  };
}
