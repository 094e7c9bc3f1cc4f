import type { AffiliateStatus as AffiliateStatusEnum, AttributionOutcome as AttributionOutcomeEnum } from '../../../gen/referral/agency/v1/enums';
import type { EnumName } from '../../common/enums';

/** The agency's vocabularies by their API names (proto/referral/agency/v1/enums.proto). */
export type AffiliateStatus = EnumName<typeof AffiliateStatusEnum>;
export type AttributionOutcome = EnumName<typeof AttributionOutcomeEnum>;
