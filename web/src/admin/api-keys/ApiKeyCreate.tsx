import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { FieldError, fieldErrors } from '../../ui/field-errors';
import { OneTimeSecret } from '../../ui/OneTimeSecret';
import { ErrorMessage } from '../../ui/states';
import { useProject } from '../session';
import { API_KEY_ROLES, type ApiKeyRole } from './roles';

/**
 * A new key with a name and a role. The API answers with the key's secret, this once: it goes to
 * this form's state only (the mutation keeps the key's record without it) and is dropped when the
 * admin says it is stored.
 */
export function ApiKeyCreate() {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [role, setRole] = useState<ApiKeyRole>('read_only');
  const [secret, setSecret] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: async (body: { name: string; role: ApiKeyRole }) => {
      const { key, ...record } = await api('post', '/api/v1/projects/{projectId}/api-keys', { path: { projectId }, body });
      setSecret(key);
      return record;
    },
    onSuccess: async () => {
      setName('');
      await queryClient.invalidateQueries({ queryKey: ['api-keys', projectId] });
    },
  });
  const errors = fieldErrors(create.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ name: name.trim(), role });
  };

  if (create.data && secret) {
    return (
      <>
        <p>
          The {create.data.role} key “{create.data.name}” is created.
        </p>
        <OneTimeSecret
          what="API key"
          secret={secret}
          doneLabel="I have stored it"
          onDone={() => {
            setSecret(null);
            create.reset();
          }}
        />
      </>
    );
  }
  return (
    <section aria-labelledby="new-key-title">
      <h2 id="new-key-title">Create a key</h2>
      <form className="stack" onSubmit={submit} noValidate>
        <label htmlFor="key-name">Name</label>
        <p className="help" id="key-name-help">
          What uses it, to tell keys apart (1 to 100 characters).
        </p>
        <input
          id="key-name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          autoComplete="off"
          aria-invalid={errors.name ? true : undefined}
          aria-describedby="key-name-help key-name-error"
        />
        <FieldError id="key-name-error" message={errors.name} />
        <fieldset>
          <legend>Role</legend>
          {API_KEY_ROLES.map((entry) => (
            <div className="checkbox-field" key={entry.role}>
              <input
                type="radio"
                name="key-role"
                id={`key-role-${entry.role}`}
                value={entry.role}
                checked={role === entry.role}
                onChange={() => setRole(entry.role)}
                aria-describedby={`key-role-${entry.role}-may`}
              />
              <label className="inline-label" htmlFor={`key-role-${entry.role}`}>
                <code>{entry.role}</code>
              </label>
              <span className="subtle" id={`key-role-${entry.role}-may`}>
                {entry.may}
              </span>
            </div>
          ))}
        </fieldset>
        {create.isError ? <ErrorMessage error={create.error} title="The key was not created" showDetails={false} /> : null}
        <div>
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create key'}
          </button>
        </div>
      </form>
    </section>
  );
}
