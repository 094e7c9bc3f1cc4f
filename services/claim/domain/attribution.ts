import type { UserIdentifier } from '../../rules/identifiers';
import type { ResolvedAttribution } from './payouts';

/** One conversion's question: who referred this user, as things stood at this moment. */
export interface AttributionLookup {
  user: UserIdentifier;
  at: Date;
}

/** A conversion's referral code, to attribute its user to the code's affiliate (when nobody referred the user yet). */
export interface ReferralCodeUse {
  user: UserIdentifier;
  code: string;
}

/**
 * Who gets paid for a conversion: the agency service, which owns affiliates, codes and referrals
 * (implemented over its gRPC API in ../jobs).
 */
export interface AttributionSource {
  /**
   * Applies referral codes: each user nobody referred yet becomes referred by the code's affiliate.
   * Answers, per use, since when the user is referred by the code's affiliate (undefined when the
   * code did not refer the user: unknown code, or someone else referred the user first).
   */
  applyReferralCodes(projectId: string, uses: ReferralCodeUse[]): Promise<Array<Date | undefined>>;
  /**
   * One answer per lookup, in order: the attribution, null when nobody earns from the user's
   * conversions (not referred, or the referrer suspended at that moment), or an Error for that
   * lookup alone. An attribution also says when the user was referred and whether its affiliate is
   * flagged now (ResolvedAttribution). Throws when the source cannot answer at all (the job then retries).
   */
  resolve(projectId: string, lookups: AttributionLookup[]): Promise<Array<ResolvedAttribution | null | Error>>;
}
