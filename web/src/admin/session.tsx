import { useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { ApiError, type ApiRequest, createApiClient } from '../api/client';

/** The admin's sign-in: a project and one of its admin API keys, kept for this browser tab only (sessionStorage). */
export interface AdminCredentials {
  projectId: string;
  apiKey: string;
}

const STORAGE_KEY = 'referral.admin';

export function readCredentials(): AdminCredentials | null {
  try {
    const value = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as Partial<AdminCredentials> | null;
    return value && typeof value.projectId === 'string' && typeof value.apiKey === 'string'
      ? { projectId: value.projectId, apiKey: value.apiKey }
      : null;
  } catch {
    return null;
  }
}

export interface AdminSession {
  credentials: AdminCredentials | null;
  /** Requests with the signed-in key. */
  api: ApiRequest;
  /** Why the last session ended without the admin signing out (the API refused the key), to show at sign-in. */
  endedBecause: string | null;
  signIn(credentials: AdminCredentials): void;
  signOut(): void;
}

const SessionContext = createContext<AdminSession | null>(null);

export function AdminSessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [credentials, setCredentials] = useState(readCredentials);
  const [endedBecause, setEndedBecause] = useState<string | null>(null);
  // A key revoked (or a project gone) while signed in: every read answers 401, so back to the sign-in, saying why.
  useEffect(
    () =>
      queryClient.getQueryCache().subscribe((event) => {
        if (event.type !== 'updated' || event.action.type !== 'error') return;
        const error = event.action.error;
        if (!(error instanceof ApiError) || error.status !== 401) return;
        sessionStorage.removeItem(STORAGE_KEY);
        queryClient.clear();
        setEndedBecause(error.message);
        setCredentials(null);
      }),
    [queryClient],
  );
  const session = useMemo<AdminSession>(
    () => ({
      credentials,
      api: createApiClient(() => credentials?.apiKey ?? null),
      endedBecause,
      signIn(next) {
        sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
        setEndedBecause(null);
        setCredentials(next);
      },
      signOut() {
        sessionStorage.removeItem(STORAGE_KEY);
        queryClient.clear();
        setCredentials(null);
      },
    }),
    [credentials, endedBecause, queryClient],
  );
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export function useAdminSession(): AdminSession {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useAdminSession outside AdminSessionProvider');
  return session;
}

/** The signed-in project and request function; only inside the signed-in layout. */
export function useProject(): { projectId: string; api: ApiRequest } {
  const { credentials, api } = useAdminSession();
  if (!credentials) throw new Error('useProject without a signed-in admin');
  return { projectId: credentials.projectId, api };
}
