import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ApiResult } from '../../api/client';
import { useProject } from '../session';
import { DEFAULT_DAYS, lastDays, type Period } from './period';

/** GET /api/v1/projects/{projectId}/overview's answer. */
export type Overview = ApiResult<'/api/v1/projects/{projectId}/overview', 'get'>;
export type OverviewCurrency = Overview['figures']['currencies'][number];

/**
 * The home's one read, of a period; the navigation reads the default period's, so the two share it. An admin read:
 * `enabled` false (a read_only key) does not ask.
 */
export function useOverview(period: Period = lastDays(DEFAULT_DAYS, new Date()), enabled = true) {
  const { projectId, api } = useProject();
  return useQuery({
    enabled,
    queryKey: ['overview', projectId, period.from, period.to],
    // Another period keeps the figures shown until its own arrive (the page does not blink empty).
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/overview', { path: { projectId }, query: { from: period.from, to: period.to }, signal }),
  });
}
