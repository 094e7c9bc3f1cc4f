import type { EffectiveTaxStatus as EffectiveTaxStatusEnum } from '../../../gen/referral/tax/v1/enums';
import type { EnumName } from '../../rules/enums';
import type { UserIdentifier } from '../../rules/identifiers';
import type { ClaimReason } from './vocabulary';

/** A user's effective tax status in a project, as the tax service answers it (specification §2.7). */
export type EffectiveTaxStatus = EnumName<typeof EffectiveTaxStatusEnum>;

/** Where effective tax statuses come from: the tax service (grpc/tax-status.client.ts). */
export interface TaxStatusSource {
  /** One status per user, in the order asked. */
  statuses(projectId: string, users: readonly UserIdentifier[]): Promise<EffectiveTaxStatus[]>;
}

/**
 * What a restricted check tells its user, per status that does not pass the gate: what to do next
 * (submit, wait for review, or renew the form). `not_required` and `approved` pass.
 */
const RESTRICTIONS: Record<Exclude<EffectiveTaxStatus, 'approved' | 'not_required'>, string> = {
  not_submitted:
    'Tax information is required before affiliate payouts can be claimed: submit your tax form (W-9, W-8BEN or W-8BEN-E) in the affiliate portal.',
  submitted: 'Your tax form is being reviewed: affiliate payouts can be claimed once it is approved.',
  revoked: 'Your tax form was revoked: submit a new tax form in the affiliate portal to claim affiliate payouts.',
  expired: 'Your W-8 tax form has expired: submit a renewed tax form in the affiliate portal to claim affiliate payouts.',
};

/** The restriction a status puts on gated checks, or null when the status passes. */
export function restrictionOf(status: EffectiveTaxStatus): string | null {
  return status === 'approved' || status === 'not_required' ? null : RESTRICTIONS[status];
}

/**
 * Affiliate and agency payouts are gated; end-user payouts never are (specification §8.1). A user
 * has a gated check only if it has an affiliate_payout or agency_payout movement (or an amount
 * credited back from one), so "the user earned as a referrer" is read from the checks themselves.
 */
export function isGated(reason: ClaimReason): boolean {
  return reason !== 'end_user';
}

/**
 * The tax gate (specification §8.1): a user with gated checks in a project that requires tax
 * information, whose effective status is not approved, sees those checks restricted. The tax
 * service is asked only when gated checks are in the answer; when it cannot answer, neither do we
 * (nothing restricted is ever shown unrestricted).
 */
export class TaxGate {
  constructor(private readonly source: TaxStatusSource) {}

  /** The restriction on `user`'s gated checks among `reasons`, or null when none applies. */
  async restriction(projectId: string, user: UserIdentifier, reasons: Iterable<ClaimReason>): Promise<string | null> {
    if (![...reasons].some(isGated)) return null;
    const [status] = await this.source.statuses(projectId, [user]);
    if (status === undefined) throw new Error('the tax service answered no status');
    return restrictionOf(status);
  }
}
