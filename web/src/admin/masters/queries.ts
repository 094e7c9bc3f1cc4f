import type { QueryClient } from '@tanstack/react-query';
import type { ApiResult } from '../../api/client';

/** One master affiliate as its detail reads it (MasterDetail, SpreadForm). */
export type Master = ApiResult<'/api/v1/projects/{projectId}/agencies/{agencyId}', 'get'>;

/** Query keys of one master's reads, and what a change to the master makes stale. */
export const masterKey = (projectId: string, agencyId: string) => ['master', projectId, agencyId] as const;
export const subAffiliatesKey = (projectId: string, agencyId: string) => ['sub-affiliates', projectId, agencyId] as const;

/** After a bind, unbind, spread change or removal: the master, its list row, its sub-affiliates and the affiliates it touched. */
export async function refreshMaster(queryClient: QueryClient, projectId: string, agencyId: string): Promise<void> {
  await Promise.all([
    queryClient.invalidateQueries({ queryKey: masterKey(projectId, agencyId) }),
    queryClient.invalidateQueries({ queryKey: subAffiliatesKey(projectId, agencyId) }),
    queryClient.invalidateQueries({ queryKey: ['masters', projectId] }),
    queryClient.invalidateQueries({ queryKey: ['affiliates', projectId] }),
    queryClient.invalidateQueries({ queryKey: ['affiliate', projectId] }),
  ]);
}
