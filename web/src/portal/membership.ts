import { useQuery } from '@tanstack/react-query';
import { ApiError, type ApiResult } from '../api/client';
import { usePortal } from './session';

export type OwnAffiliate = ApiResult<'/api/v1/projects/{projectId}/affiliate-portal/affiliate', 'get'>;

/**
 * The signed-in wallet's affiliate record in this project, or null when it is none. Membership is
 * decided here, from the record, however it was made (an approved application, an admin, the SDK);
 * the wallet's application only tells a wallet that is no affiliate where it stands.
 */
export function useOwnAffiliate() {
  const { projectId, address, api } = usePortal();
  return useQuery({
    queryKey: ['portal', projectId, address, 'affiliate'],
    // An admin may make or approve it elsewhere: read it again whenever a page needs it.
    staleTime: 0,
    queryFn: async ({ signal }): Promise<OwnAffiliate | null> => {
      try {
        return await api('get', '/api/v1/projects/{projectId}/affiliate-portal/affiliate', { path: { projectId }, signal });
      } catch (error) {
        if (error instanceof ApiError && error.code === 'AFFILIATE_NOT_FOUND') return null;
        throw error;
      }
    },
  });
}
