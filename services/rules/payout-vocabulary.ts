import { ClaimReason as ClaimReasonEnum, MovementKind as MovementKindEnum } from '../../gen/referral/claim/v1/enums';
import { type EnumName, enumNames } from './enums';

/**
 * Shared by the gateway and the webhooks service: how payouts and chains are named in every
 * response, filter and published event.
 *
 * One vocabulary for payout kinds: the specification's (§2.12) `affiliate_payout`,
 * `end_user_payout`, `agency_payout`, which movements and leaderboards use. A claim check keeps
 * its reason internally as Fuul v2's ClaimReason (proto ClaimReason, the claim tables' `reason`,
 * the voucher's numeric reason 0 affiliate, 1 end user, 2 agency, which the EIP-712 struct
 * needs); outside, a check names the kind of payout it holds.
 */
export type PayoutKind = EnumName<typeof MovementKindEnum>;
export type ClaimReasonName = EnumName<typeof ClaimReasonEnum>;

export const PAYOUT_KINDS = enumNames(MovementKindEnum);

/** The kind of payout a claim check of this reason holds (each kind accumulates into checks of one reason). */
export const PAYOUT_KIND_OF_REASON: Record<ClaimReasonName, PayoutKind> = {
  affiliate: 'affiliate_payout',
  end_user: 'end_user_payout',
  agency: 'agency_payout',
};

/**
 * A chain id as responses write it: a JSON number, as EIP-155 chain ids are (currencies accept only
 * ids a JSON number holds exactly), except in the shapes the published @fuul/sdk types as strings.
 * On the wire (proto, events) it is a decimal string; a value no JSON number holds exactly is a
 * fault of its producer.
 */
export function chainIdNumber(value: string, field = 'chain_id'): number {
  const chainId = Number(value);
  if (!/^[1-9][0-9]*$/.test(value) || !Number.isSafeInteger(chainId))
    throw new Error(`${field} ${JSON.stringify(value)} is not a chain id a JSON number holds exactly`);
  return chainId;
}

/**
 * A currency's chain id as the agency's earnings carry it: unset before the currency is known, and "0"
 * (with address "") for a point currency, which has no chain (docs/claims.md#points); both null here.
 */
export function earningChainId(value: string | undefined, field = 'currency_chain_id'): number | null {
  return value === undefined || value === '0' ? null : chainIdNumber(value, field);
}
