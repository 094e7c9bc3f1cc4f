import { status as GrpcStatus } from '@grpc/grpc-js';
import type { AgencyServiceClient, Attribution as AttributionMessage } from '../../../gen/referral/agency/v1/agency';
import { AttributionOutcome } from '../../../gen/referral/agency/v1/enums';
import type { GrpcClient } from '../../platform/grpc/client';
import { isServiceError, readGrpcError } from '../../platform/grpc/errors';
import { isIdentifierType } from '../../rules/identifiers';
import type { AttributionLookup, AttributionSource, ReferralCodeUse } from '../domain/attribution';
import {
  type AffiliateRef,
  type Attribution,
  MAX_REBATE_BPS,
  type ResolvedAttribution,
  type UplineAffiliate,
  type UplineLevel,
} from '../domain/payouts';

/** Referral codes are applied one call each; this many travel at once. */
const REFERRAL_CONCURRENCY = 16;

/**
 * Refusals of CreateReferral that say the code does not refer this user (unknown code, referred
 * by someone else first, a self-referral, a suspended affiliate, a malformed code): the conversion
 * is paid as attribution stands. Anything else (the agency away, a deadline) fails the job, which retries.
 */
const CODE_REFUSALS = new Set([
  GrpcStatus.NOT_FOUND,
  GrpcStatus.ABORTED,
  GrpcStatus.ALREADY_EXISTS,
  GrpcStatus.FAILED_PRECONDITION,
  GrpcStatus.INVALID_ARGUMENT,
]);

type AgencyCalls = GrpcClient<AgencyServiceClient>['call'];

/**
 * The agency service as the claim service's source of attribution (its gRPC API), over the client
 * outbound-clients.ts builds with the configured deadline; one batch of up to 1,000 lookups is one query there.
 */
export class AgencyAttributionSource implements AttributionSource {
  constructor(private readonly agency: AgencyCalls) {}

  async applyReferralCodes(projectId: string, uses: ReferralCodeUse[]): Promise<Array<Date | undefined>> {
    const answers: Array<Date | undefined> = [];
    for (let start = 0; start < uses.length; start += REFERRAL_CONCURRENCY) {
      const slice = uses.slice(start, start + REFERRAL_CONCURRENCY);
      answers.push(...(await Promise.all(slice.map((use) => this.refer(projectId, use)))));
    }
    return answers;
  }

  async resolve(projectId: string, lookups: AttributionLookup[]): Promise<Array<ResolvedAttribution | null | Error>> {
    if (lookups.length === 0) return [];
    const { results } = await this.agency.batchResolveAttribution({ projectId, items: lookups.map(({ user, at }) => ({ user, at })) });
    if (results.length !== lookups.length) throw new Error(`the agency service answered ${results.length} of ${lookups.length} attributions`);
    return results.map(toAttribution);
  }

  private async refer(projectId: string, use: ReferralCodeUse): Promise<Date | undefined> {
    try {
      const { referral } = await this.agency.createReferral({ projectId, user: use.user, code: use.code });
      return referral?.referredAt;
    } catch (error) {
      if (isServiceError(error) && CODE_REFUSALS.has(readGrpcError(error).grpcStatus)) return undefined;
      throw error;
    }
  }
}

function affiliateOf(ref: { id: string; identifier: string; identifierType: string } | undefined): AffiliateRef | Error {
  if (!ref || !isIdentifierType(ref.identifierType)) return new Error('the agency service answered an attribution without a valid affiliate');
  return { id: ref.id, user: { identifier: ref.identifier, identifierType: ref.identifierType } };
}

/**
 * Only ATTRIBUTED pays; a suspended referrer, or no referrer, pays nobody. A flagged affiliate is
 * ATTRIBUTED with affiliate_flagged set (its payouts then wait for review); referred_at is carried for
 * the review rules.
 */
function toAttribution(message: AttributionMessage): ResolvedAttribution | null | Error {
  if (message.error) return new Error(`attribution refused: ${message.error.code}: ${message.error.message}`);
  if (message.outcome !== AttributionOutcome.ATTRIBUTED) {
    if (message.outcome === AttributionOutcome.NOT_REFERRED || message.outcome === AttributionOutcome.AFFILIATE_SUSPENDED) return null;
    return new Error(`the agency service answered an unknown attribution outcome (${message.outcome})`);
  }
  const affiliate = affiliateOf(message.affiliate);
  if (affiliate instanceof Error) return affiliate;
  let master: Attribution['master'] = null;
  if (message.master) {
    const masterRef = affiliateOf(message.master);
    if (masterRef instanceof Error) return masterRef;
    if (!Number.isInteger(message.spreadBps) || message.spreadBps < 0 || message.spreadBps > 10_000) {
      return new Error(`the agency service answered a spread of ${message.spreadBps} bps`);
    }
    master = { affiliate: masterRef, spreadBps: message.spreadBps };
  }
  const upline = uplineOf(message, affiliate);
  if (upline instanceof Error) return upline;
  if (!Number.isInteger(message.userRebateRateBps) || message.userRebateRateBps < 0 || message.userRebateRateBps > MAX_REBATE_BPS) {
    return new Error(`the agency service answered a rebate rate of ${message.userRebateRateBps} bps`);
  }
  return {
    affiliate,
    master,
    upline,
    tierId: message.activeTierId ?? null,
    rebateBps: message.userRebateRateBps,
    referredAt: message.referredAt ?? null,
    affiliateFlagged: message.affiliateFlagged,
  };
}

/**
 * The referring affiliate's upline as the agency answers it (`ancestors`, docs/claims.md#referral-levels): each
 * level 2..4 at most once, ascending (levels may skip where one was suspended), and no affiliate twice in the
 * chain, the referring one included (the agency refuses a referral that would close a cycle). An answer that
 * breaks this is refused for that conversion alone: paying it would pay one affiliate twice or at a level
 * that does not exist.
 */
function uplineOf(message: AttributionMessage, affiliate: AffiliateRef): UplineAffiliate[] | Error {
  const upline: UplineAffiliate[] = [];
  const seen = new Set([affiliate.id]);
  for (const ancestor of message.ancestors) {
    const level = ancestor.level;
    if (level < 2 || level > 4 || (upline.length > 0 && level <= upline[upline.length - 1]!.level)) {
      return new Error(`the agency service answered an upline with level ${level} out of order or range`);
    }
    const ref = affiliateOf(ancestor.affiliate);
    if (ref instanceof Error) return ref;
    if (seen.has(ref.id)) return new Error(`the agency service answered an upline naming affiliate ${ref.id} twice`);
    seen.add(ref.id);
    upline.push({ level: level as UplineLevel, affiliate: ref });
  }
  return upline;
}
