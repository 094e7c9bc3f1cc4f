import type { ApiQuery } from '../../api/client';

/** The affiliate list's query as the API takes it, and its round trip through the page's URL (so a view can be shared and reloaded). */
export type AffiliateQuery = NonNullable<ApiQuery<'/api/v1/projects/{projectId}/affiliates', 'get'>>;
export type AffiliateFilters = Omit<AffiliateQuery, 'page' | 'page_size'>;
export type SortColumn = NonNullable<AffiliateQuery['sort_by']>;

export const SORT_COLUMNS: Array<{ value: SortColumn; label: string }> = [
  { value: 'joined_at', label: 'Joined' },
  { value: 'volume_usd', label: 'Volume (USD)' },
  { value: 'revenue_usd', label: 'Revenue (USD)' },
  { value: 'conversions', label: 'Conversions' },
  { value: 'end_users', label: 'End users' },
  { value: 'clicks', label: 'Clicks' },
  { value: 'referred_volume_usd', label: 'Referred volume (USD)' },
];

const TEXT_FILTERS = ['q', 'region', 'audience', 'audience_ids', 'conversions'] as const;

export function filtersFromUrl(params: URLSearchParams): AffiliateFilters {
  const filters: AffiliateFilters = {};
  for (const name of TEXT_FILTERS) {
    const value = params.get(name);
    if (value) filters[name] = value;
  }
  const status = params.get('status');
  if (status === 'active' || status === 'flagged' || status === 'suspended') filters.status = status;
  const sortBy = params.get('sort_by');
  if (SORT_COLUMNS.some((column) => column.value === sortBy)) filters.sort_by = sortBy as SortColumn;
  const order = params.get('order');
  if (order === 'asc' || order === 'desc') filters.order = order;
  return filters;
}

export function filtersToUrl(filters: AffiliateFilters): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value !== undefined && value !== '') params.set(name, String(value));
  return params;
}
