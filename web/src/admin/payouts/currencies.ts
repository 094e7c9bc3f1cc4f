import { useQuery } from '@tanstack/react-query';
import type { ApiResult } from '../../api/client';
import { useProject } from '../session';

export type Currency = ApiResult<'/api/v1/projects/{projectId}/currencies', 'get'>['results'][number];

/** The query key of the project's currencies: adding one refreshes every screen that picks one. */
export const currenciesKey = (projectId: string) => ['currencies', projectId] as const;

/**
 * The project's currencies for the pickers of the other payouts pages: the first 100, oldest first
 * (a project pays in a handful; the Currencies page pages through all of them).
 */
export function useCurrencyChoices() {
  const { projectId, api } = useProject();
  return useQuery({
    queryKey: [...currenciesKey(projectId), 'choices'],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/currencies', { path: { projectId }, query: { page: 1, page_size: 100 }, signal }),
    select: (page) => page.results,
  });
}

/** "USDC (chain 8453)": currencies of one name may live on several chains; "XP (points)": a point currency has none. */
export function currencyLabel(currency: Pick<Currency, 'name' | 'chain_id'>): string {
  return currency.chain_id === null ? `${currency.name} (points)` : `${currency.name} (chain ${currency.chain_id})`;
}
