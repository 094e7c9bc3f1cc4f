import type {
  AffiliateStatus as AffiliateStatusEnum,
  ApplicationAction as ApplicationActionEnum,
  ApplicationStatus as ApplicationStatusEnum,
  AttributionOutcome as AttributionOutcomeEnum,
  ReferredUserSort as ReferredUserSortEnum,
  SortOrder as SortOrderEnum,
  SubAffiliateSort as SubAffiliateSortEnum,
} from '../../../gen/referral/agency/v1/enums';

import type { EnumName } from '../../rules/enums';

/** The agency's vocabularies by their API names (proto/referral/agency/v1/enums.proto). */
export type AffiliateStatus = EnumName<typeof AffiliateStatusEnum>;
export type AttributionOutcome = EnumName<typeof AttributionOutcomeEnum>;
export type ApplicationStatus = EnumName<typeof ApplicationStatusEnum>;
export type ApplicationAction = EnumName<typeof ApplicationActionEnum>;
export type SubAffiliateSort = EnumName<typeof SubAffiliateSortEnum>;
export type ReferredUserSort = EnumName<typeof ReferredUserSortEnum>;
export type SortOrder = EnumName<typeof SortOrderEnum>;
