import type { AffiliateStatus } from '../../domain/vocabulary';

/** What the affiliate list is asked: its filters (all must hold) and its order. */
export interface AffiliateFilters {
  status?: AffiliateStatus;
  region?: string;
  /** A prefix of the identifier (canonical spelling) or of the name (letter case ignored). */
  q?: string;
  /** Members of this segment (audience membership projection). */
  audienceId?: string;
  /** Members of any of these segments. */
  anyAudienceIds?: readonly string[];
  /** With at least one conversion of any of these names (the metrics projection's counts per name). */
  conversionNames?: readonly string[];
}

/** The list's orders: when it joined, or one of its metrics (ties by id, in the same direction). */
export type AffiliateSortKey = 'joined_at' | 'volume_usd' | 'revenue_usd' | 'conversions' | 'end_users' | 'referred_volume_usd' | 'clicks';
export interface AffiliateSort {
  by: AffiliateSortKey;
  order: 'asc' | 'desc';
}
export const DEFAULT_AFFILIATE_SORT: AffiliateSort = { by: 'joined_at', order: 'desc' };
