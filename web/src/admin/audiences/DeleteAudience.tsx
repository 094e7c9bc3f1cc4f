import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { ConfirmMutationDialog } from '../../ui/ConfirmDialog';
import { useProject } from '../session';

/** Deletes the audience with its entries and badge, after a confirmation; the list then says so. */
export function DeleteAudience({ audienceId, name }: { audienceId: string; name: string }) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const remove = useMutation({
    mutationFn: () => api('delete', '/api/v1/projects/{projectId}/audiences/{audienceId}', { path: { projectId, audienceId } }),
    onSuccess: async () => {
      setOpen(false);
      queryClient.removeQueries({ queryKey: ['audience', projectId, audienceId] });
      await queryClient.invalidateQueries({ queryKey: ['audiences', projectId] });
      await navigate('..', { relative: 'path', state: { notice: `The audience ${name} was deleted, with its users and badge.` } });
    },
  });
  return (
    <div className="review-actions">
      <button type="button" onClick={() => setOpen(true)}>
        Delete audience…
      </button>
      <ConfirmMutationDialog
        open={open}
        title={`Delete ${name}?`}
        confirmLabel="Delete the audience"
        mutation={remove}
        onClose={() => setOpen(false)}
      >
        <p>Its users leave it and its badge goes. Payout terms and tiers that name it no longer apply to anyone. This cannot be undone.</p>
      </ConfirmMutationDialog>
    </div>
  );
}
