export { ReferralApiError, ReferralClient } from './referral-client';
export type { ReferralClientOptions, UserAudience, UserIdentifierType } from './referral-client';
