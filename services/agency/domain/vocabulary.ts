import type * as enums from '../../../gen/referral/agency/v1/enums';
import type { Vocabularies } from '../../rules/enums';

/** The agency's vocabularies by their API names (proto/referral/agency/v1/enums.proto). */
type Vocabulary = Vocabularies<typeof enums>;

export type AffiliateStatus = Vocabulary['AffiliateStatus'];
export type AttributionOutcome = Vocabulary['AttributionOutcome'];
export type ApplicationStatus = Vocabulary['ApplicationStatus'];
export type ApplicationAction = Vocabulary['ApplicationAction'];
export type SubAffiliateSort = Vocabulary['SubAffiliateSort'];
export type ReferredUserSort = Vocabulary['ReferredUserSort'];
export type SortOrder = Vocabulary['SortOrder'];
export type AttributionModel = Vocabulary['AttributionModel'];
export type TrackingOutcome = Vocabulary['TrackingOutcome'];
