import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import type { ApiResult } from '../../api/client';
import { ConfirmMutationDialog } from '../../ui/ConfirmDialog';
import { fieldErrors } from '../../ui/field-errors';
import { ErrorMessage } from '../../ui/states';
import { TextField } from '../../ui/TextField';
import { useProject } from '../session';

type Badge = NonNullable<ApiResult<'/api/v1/projects/{projectId}/audiences/{audienceId}', 'get'>['badge']>;

/**
 * The audience's badge: add one, change it, remove it. The image is kept as its address and not
 * shown here: the dashboard loads nothing from anywhere but the gateway.
 */
export function BadgeEditor({ audienceId, badge }: { audienceId: string; badge: Badge | null }) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const [name, setName] = useState(badge?.name ?? '');
  const [description, setDescription] = useState(badge?.description ?? '');
  const [imageUrl, setImageUrl] = useState(badge?.image_url ?? '');
  const [confirmingRemoval, setConfirmingRemoval] = useState(false);
  const path = { projectId, audienceId };
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: ['audience', projectId, audienceId] });
    await queryClient.invalidateQueries({ queryKey: ['audiences', projectId] });
  };
  const save = useMutation({
    mutationFn: () => {
      // An emptied optional field clears it (null), as the API documents.
      const body = { name: name.trim(), description: description.trim() || null, image_url: imageUrl.trim() || null };
      return badge
        ? api('patch', '/api/v1/projects/{projectId}/audiences/{audienceId}/badge', { path, body })
        : api('post', '/api/v1/projects/{projectId}/audiences/{audienceId}/badge', { path, body });
    },
    onSuccess: async () => {
      remove.reset();
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: () => api('delete', '/api/v1/projects/{projectId}/audiences/{audienceId}/badge', { path }),
    onSuccess: async () => {
      save.reset();
      setConfirmingRemoval(false);
      setName('');
      setDescription('');
      setImageUrl('');
      await refresh();
    },
  });
  const errors = fieldErrors(save.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <section className="panel" aria-labelledby="badge-title">
      <h2 id="badge-title">Badge</h2>
      <p className="help">Shown for the users of this audience{badge ? '' : '; this audience has none yet'}.</p>
      <form className="stack" onSubmit={submit} noValidate>
        <TextField id="badge-name" label="Badge name" value={name} onChange={setName} error={errors.name} />
        <TextField
          id="badge-description"
          label="Badge description (optional)"
          value={description}
          onChange={setDescription}
          error={errors.description}
        />
        <TextField
          id="badge-image"
          label="Badge image address (optional, https)"
          type="url"
          value={imageUrl}
          onChange={setImageUrl}
          error={errors.image_url}
        />
        {save.isError ? <ErrorMessage error={save.error} title="The badge was not saved" showDetails={false} /> : null}
        <div className="inline-fields">
          <button type="submit" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : badge ? 'Save badge' : 'Add badge'}
          </button>
          {badge ? (
            <button type="button" className="danger-outline" onClick={() => setConfirmingRemoval(true)}>
              Remove badge
            </button>
          ) : null}
        </div>
      </form>
      <p role="status" className="help">
        {save.isSuccess && !save.isPending ? `Badge “${save.data.name}” saved.` : ''}
        {remove.isSuccess ? 'Badge removed.' : ''}
      </p>
      <ConfirmMutationDialog
        open={confirmingRemoval}
        title={`Remove the badge “${badge?.name ?? ''}”?`}
        confirmLabel="Yes, remove"
        mutation={remove}
        onClose={() => setConfirmingRemoval(false)}
      >
        <p>The users of this audience will no longer show it.</p>
      </ConfirmMutationDialog>
    </section>
  );
}
