import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useProject } from './session';

/** Where the signed-in key's description is cached: sign-in writes it there, so the first page knows the role at once. */
export function currentKeyQueryKey(projectId: string): readonly unknown[] {
  return ['api-key', projectId, 'current'];
}

/** The signed-in key (its role, name and prefix): a key's role never changes, so it is read once a session. */
export function useCurrentKey() {
  const { projectId, api } = useProject();
  return useQuery({
    queryKey: currentKeyQueryKey(projectId),
    queryFn: ({ signal }) => api('get', '/api/v1/projects/{projectId}/api-keys/current', { path: { projectId }, signal }),
    staleTime: Infinity,
  });
}

/** What the frame says to a read-only key, and why it is offered no change anywhere. */
export const READ_ONLY_NOTICE = 'Read-only key: you can look, not change.';

/**
 * Whether the signed-in key may change things (an admin key). Until its role is known, no: a
 * read-only key is never offered a change that the API would refuse.
 */
export function useCanWrite(): boolean {
  return useCurrentKey().data?.role === 'admin';
}

/** Its children (a control that changes something) for an admin key only; a read-only key is told why once, by the frame. */
export function WritesOnly({ children }: { children: ReactNode }) {
  return useCanWrite() ? <>{children}</> : null;
}

/**
 * A form's fields that change something: shown to every key (a read-only key reads the values there),
 * but disabled, with the reason beside them, for a read-only key.
 */
export function ChangesFieldset({ children }: { children: ReactNode }) {
  const canWrite = useCanWrite();
  return (
    <fieldset className="changes" disabled={!canWrite} aria-describedby={canWrite ? undefined : 'read-only-reason'}>
      {children}
    </fieldset>
  );
}

/** A page or section only an admin key can read (the API answers a read-only key 403 there): said in a sentence instead. */
export function AdminKeyOnly({ what, children }: { what: string; children: ReactNode }) {
  const key = useCurrentKey();
  if (!key.data) return null;
  if (key.data.role === 'admin') return <>{children}</>;
  return (
    <p className="state">
      {what} needs an admin key; you are signed in with a read-only key, which can look at audiences, affiliates, applications, the program,
      conversions, leaderboards and webhooks.
    </p>
  );
}
