import { CurrencyFamily } from '../../../gen/referral/claim/v1/enums';

/** The Fuul SDK's payout `type` as the claim service's currency family: on-chain currencies, or points. */
export function familyOf(type: 'onchain-currency' | 'point'): CurrencyFamily {
  return type === 'point' ? CurrencyFamily.POINT : CurrencyFamily.CHAIN;
}
