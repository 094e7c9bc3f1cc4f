import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';
import { type ApiRequest, createApiClient } from '../api/client';

/** The admin's sign-in: a project and one of its admin API keys, kept for this browser tab only (sessionStorage). */
export interface AdminCredentials {
  projectId: string;
  apiKey: string;
}

const STORAGE_KEY = 'referral.admin';

export function readCredentials(): AdminCredentials | null {
  try {
    const value = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as Partial<AdminCredentials> | null;
    return value && typeof value.projectId === 'string' && typeof value.apiKey === 'string' ? { projectId: value.projectId, apiKey: value.apiKey } : null;
  } catch {
    return null;
  }
}

export interface AdminSession {
  credentials: AdminCredentials | null;
  /** Requests with the signed-in key. */
  api: ApiRequest;
  signIn(credentials: AdminCredentials): void;
  signOut(): void;
}

const SessionContext = createContext<AdminSession | null>(null);

export function AdminSessionProvider({ children }: { children: ReactNode }) {
  const [credentials, setCredentials] = useState(readCredentials);
  const session = useMemo<AdminSession>(
    () => ({
      credentials,
      api: createApiClient(() => credentials?.apiKey ?? null),
      signIn(next) {
        sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
        setCredentials(next);
      },
      signOut() {
        sessionStorage.removeItem(STORAGE_KEY);
        setCredentials(null);
      },
    }),
    [credentials],
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
