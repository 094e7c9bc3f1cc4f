import { useQuery } from '@tanstack/react-query';
import { ApiError, type ApiResult } from '../../api/client';
import { usePortal } from '../session';

export type Application = ApiResult<'/api/v1/projects/{projectId}/affiliate-portal/application', 'get'>;

/**
 * The wallet's latest application (null when it never applied). It says where a wallet that is no
 * affiliate stands; whether the wallet is an affiliate is the affiliate record's answer (useOwnAffiliate).
 */
export function useApplication() {
  const { projectId, address, api } = usePortal();
  return useQuery({
    queryKey: ['portal', projectId, address, 'application'],
    // An admin decides elsewhere: read it again whenever a page needs it.
    staleTime: 0,
    queryFn: async (): Promise<Application | null> => {
      try {
        return await api('get', '/api/v1/projects/{projectId}/affiliate-portal/application', { path: { projectId } });
      } catch (error) {
        if (error instanceof ApiError && error.code === 'APPLICATION_NOT_FOUND') return null;
        throw error;
      }
    },
  });
}
