import { useQueryClient } from '@tanstack/react-query';
import { useProject } from '../session';

/** What a change to one affiliate makes stale: its detail, its history and the list. Each action reads them again after it succeeds. */
export function useAffiliateRefresh(identifier: string, identifierType: string): () => Promise<void> {
  const { projectId } = useProject();
  const queryClient = useQueryClient();
  return async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: ['affiliate', projectId, identifierType, identifier] }),
      queryClient.invalidateQueries({ queryKey: ['history', projectId, identifierType, identifier] }),
      queryClient.invalidateQueries({ queryKey: ['affiliates', projectId] }),
    ]);
  };
}
