import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { createApiClient } from '../api/client';
import { ErrorMessage } from '../ui/states';
import { documentTitle } from './page-title';
import { currentKeyQueryKey } from './key-role';
import { useAdminSession } from './session';

/**
 * Signs in with a project id and an admin or read_only API key: the key is checked by reading its own
 * description (its role) with it before it is kept (in sessionStorage: closing the tab forgets it);
 * the role read is cached, so the first page already knows whether to offer changes.
 */
export function SignIn() {
  const { signIn, endedBecause } = useAdminSession();
  const [projectId, setProjectId] = useState('');
  const [apiKey, setApiKey] = useState('');
  useEffect(() => {
    document.title = documentTitle('Sign in', undefined);
  }, []);
  const queryClient = useQueryClient();
  const check = useMutation({
    mutationFn: async (credentials: { projectId: string; apiKey: string }) => {
      const api = createApiClient(() => credentials.apiKey);
      const key = await api('get', '/api/v1/projects/{projectId}/api-keys/current', { path: { projectId: credentials.projectId } });
      return { credentials, key };
    },
    onSuccess: ({ credentials, key }) => {
      queryClient.setQueryData(currentKeyQueryKey(credentials.projectId), key);
      signIn(credentials);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    check.mutate({ projectId: projectId.trim(), apiKey: apiKey.trim() });
  };
  return (
    <main id="main" className="sign-in">
      <h1>Sign in to the referral admin</h1>
      <p>
        Use your project’s id and one of its admin API keys (a read-only key shows everything it can read, and changes nothing). The key stays in this
        tab only.
      </p>
      {endedBecause ? (
        <p className="state state-error" role="alert">
          You were signed out: {endedBecause}
        </p>
      ) : null}
      <form onSubmit={submit}>
        <label htmlFor="project-id">Project id</label>
        <input id="project-id" name="projectId" value={projectId} onChange={(e) => setProjectId(e.target.value)} required autoComplete="off" />
        <label htmlFor="api-key">Admin API key</label>
        <input id="api-key" name="apiKey" type="password" value={apiKey} onChange={(e) => setApiKey(e.target.value)} required autoComplete="off" />
        <button type="submit" disabled={check.isPending}>
          {check.isPending ? 'Checking…' : 'Sign in'}
        </button>
      </form>
      {check.isError ? <ErrorMessage error={check.error} title="Could not sign in" /> : null}
    </main>
  );
}
