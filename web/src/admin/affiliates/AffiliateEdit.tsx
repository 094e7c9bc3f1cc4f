import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import type { ApiBody } from '../../api/client';
import { fieldErrors } from '../../ui/field-errors';
import { ErrorMessage } from '../../ui/states';
import { TextField } from '../../ui/TextField';
import { useProject } from '../session';
import { useAffiliateRefresh } from './refresh';

type Changes = ApiBody<'/api/v1/projects/{projectId}/affiliates/{userIdentifier}', 'patch'>;

/** An affiliate's name and region, changed with the API's problems at their fields; only what changed is sent (an empty region clears it). */
export function AffiliateEdit({
  identifier,
  identifierType,
  name: storedName,
  region: storedRegion,
}: {
  identifier: string;
  identifierType: string;
  name: string;
  region: string | null;
}) {
  const { projectId, api } = useProject();
  const refresh = useAffiliateRefresh(identifier, identifierType);
  const [name, setName] = useState(storedName);
  const [region, setRegion] = useState(storedRegion ?? '');
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: (body: Changes) =>
      api('patch', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}', {
        path: { projectId, userIdentifier: identifier },
        query: { identifier_type: identifierType },
        body,
      }),
    onSuccess: async () => {
      setSaved(true);
      await refresh();
    },
  });
  const changes: Changes = {};
  if (name.trim() !== storedName) changes.name = name.trim();
  if (region.trim().toUpperCase() !== (storedRegion ?? '')) changes.region = region.trim() || null;
  const errors = fieldErrors(save.error);
  const edit = (set: (value: string) => void) => (value: string) => {
    setSaved(false);
    set(value);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    save.mutate(changes);
  };
  return (
    <section aria-labelledby="edit-affiliate-title">
      <h2 id="edit-affiliate-title">Name and region</h2>
      <form className="inline-fields" onSubmit={submit} noValidate>
        <div>
          <TextField id="edit-affiliate-name" label="Name" value={name} onChange={edit(setName)} error={errors.name} />
        </div>
        <div>
          <TextField
            id="edit-affiliate-region"
            label="Region (country code, empty for none)"
            value={region}
            onChange={edit(setRegion)}
            error={errors.region}
          />
        </div>
        <button type="submit" disabled={save.isPending || Object.keys(changes).length === 0}>
          {save.isPending ? 'Saving…' : 'Save name and region'}
        </button>
      </form>
      {save.isError ? <ErrorMessage error={save.error} title="Not saved" showDetails={false} /> : null}
      <p role="status" aria-live="polite" className={saved ? 'state' : undefined}>
        {saved ? 'Saved: the name and region are changed.' : ''}
      </p>
    </section>
  );
}
