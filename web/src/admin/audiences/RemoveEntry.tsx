import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ConfirmMutationDialog } from '../../ui/ConfirmDialog';
import { useProject } from '../session';

export interface EntryToRemove {
  identifier: string;
  identifier_type: string;
  kind: string;
}

/** Removes one user from the audience after a confirmation; a dynamic entry is said to come back while the user still matches. */
export function RemoveEntryDialog({
  audienceId,
  entry,
  onClose,
  onRemoved,
}: {
  audienceId: string;
  entry: EntryToRemove;
  onClose(): void;
  onRemoved(sentence: string): void;
}) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () =>
      api('delete', '/api/v1/projects/{projectId}/audiences/{audienceId}/entries/{userIdentifier}', {
        path: { projectId, audienceId, userIdentifier: entry.identifier },
        query: { user_identifier_type: entry.identifier_type },
      }),
    onSuccess: async () => {
      onRemoved(`${entry.identifier} was removed from the audience.`);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: ['entries', projectId, audienceId] }),
        queryClient.invalidateQueries({ queryKey: ['audience', projectId, audienceId] }),
      ]);
    },
  });
  return (
    <ConfirmMutationDialog open title={`Remove ${entry.identifier}?`} confirmLabel="Remove the user" mutation={remove} onClose={onClose}>
      <p>
        The user leaves the audience and its badge.
        {entry.kind === 'dynamic' ? ' It was added by the condition: it comes back at the next evaluation if it still matches.' : ''}
      </p>
    </ConfirmMutationDialog>
  );
}
