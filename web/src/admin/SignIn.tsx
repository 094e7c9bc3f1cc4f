import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { createApiClient } from '../api/client';
import { ErrorMessage } from '../ui/states';
import { documentTitle } from './page-title';
import { useAdminSession } from './session';

/**
 * Signs in with a project id and an admin API key: the key is checked by reading the project's
 * audiences with it before it is kept (in sessionStorage: closing the tab forgets it).
 */
export function SignIn() {
  const { signIn, endedBecause } = useAdminSession();
  const [projectId, setProjectId] = useState('');
  const [apiKey, setApiKey] = useState('');
  useEffect(() => {
    document.title = documentTitle('Sign in', undefined);
  }, []);
  const check = useMutation({
    mutationFn: async (credentials: { projectId: string; apiKey: string }) => {
      const api = createApiClient(() => credentials.apiKey);
      await api('get', '/api/v1/projects/{projectId}/audiences', { path: { projectId: credentials.projectId }, query: { page_size: 1 } });
      return credentials;
    },
    onSuccess: signIn,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    check.mutate({ projectId: projectId.trim(), apiKey: apiKey.trim() });
  };
  return (
    <main id="main" className="sign-in">
      <h1>Sign in to the referral admin</h1>
      <p>Use your project’s id and one of its admin API keys. The key stays in this tab only.</p>
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
