import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { ApiError } from '../../api/client';
import { ErrorMessage } from '../../ui/states';
import { useProject } from '../session';
import { parseCondition } from './condition';
import { ConditionEditor } from './ConditionEditor';
import { fieldMessage } from '../../ui/error-messages';

export function AudienceCreate() {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [conditionText, setConditionText] = useState('');
  const [localError, setLocalError] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: (body: { name: string; description: string | null; condition: Record<string, unknown> | null }) =>
      api('post', '/api/v1/projects/{projectId}/audiences', { path: { projectId }, body }),
    onSuccess: async (audience) => {
      await queryClient.invalidateQueries({ queryKey: ['audiences', projectId] });
      await navigate(`../${audience.id}`, { relative: 'path' });
    },
  });
  const violations = create.error instanceof ApiError ? create.error.details : [];
  // Each violation is shown at its field: the name's under the name, the condition's in the editor.
  const nameViolation = violations.find((violation) => violation.field === 'name');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = parseCondition(conditionText);
    if ('error' in parsed) {
      setLocalError(parsed.error);
      return;
    }
    setLocalError(null);
    create.mutate({ name: name.trim(), description: description.trim() || null, condition: parsed.condition });
  };

  return (
    <section aria-labelledby="new-audience-title">
      <p className="breadcrumb">
        <Link to="..">Audiences</Link> /
      </p>
      <h1 id="new-audience-title">New audience</h1>
      <form className="stack" onSubmit={submit} noValidate>
        <label htmlFor="audience-name">Name</label>
        <input
          id="audience-name"
          name="name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          required
          aria-invalid={nameViolation ? true : undefined}
          aria-describedby={nameViolation ? 'audience-name-error' : undefined}
        />
        {nameViolation ? (
          <p id="audience-name-error" className="field-error">
            {fieldMessage(nameViolation.reason)}
          </p>
        ) : null}
        <label htmlFor="audience-description">Description (optional)</label>
        <input id="audience-description" name="description" value={description} onChange={(event) => setDescription(event.target.value)} />
        <ConditionEditor value={conditionText} onChange={setConditionText} error={create.error} />
        {localError ? (
          <p className="field-error" role="alert">
            {localError}
          </p>
        ) : null}
        {create.isError ? <ErrorMessage error={create.error} title="The audience was not created" showDetails={false} /> : null}
        <div>
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create audience'}
          </button>
        </div>
      </form>
    </section>
  );
}
