import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';
import { type ApiRequest, createApiClient } from '../api/client';

/** A wallet's sign-in: the session token the gateway gave for it, kept for this browser tab only (sessionStorage). */
export interface WalletSession {
  token: string;
  /** Lowercase, as the API answers it. */
  address: string;
  expiresAt: string;
}

const STORAGE_KEY = 'referral.portal';

function readSession(): WalletSession | null {
  try {
    const value = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as Partial<WalletSession> | null;
    if (!value || typeof value.token !== 'string' || typeof value.address !== 'string' || typeof value.expiresAt !== 'string') return null;
    // An expired token would only be refused: sign in again instead.
    return Date.parse(value.expiresAt) > Date.now() ? { token: value.token, address: value.address, expiresAt: value.expiresAt } : null;
  } catch {
    return null;
  }
}

export interface PortalSession {
  session: WalletSession | null;
  /** Requests with the wallet's session token. */
  api: ApiRequest;
  signIn(session: WalletSession): void;
  signOut(): void;
}

const SessionContext = createContext<PortalSession | null>(null);

export function PortalSessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState(readSession);
  const value = useMemo<PortalSession>(
    () => ({
      session,
      api: createApiClient(() => session?.token ?? null),
      signIn(next) {
        sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
        setSession(next);
      },
      signOut() {
        sessionStorage.removeItem(STORAGE_KEY);
        setSession(null);
      },
    }),
    [session],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function usePortalSession(): PortalSession {
  const value = useContext(SessionContext);
  if (!value) throw new Error('usePortalSession outside PortalSessionProvider');
  return value;
}

/** The signed-in wallet, its project and request function; only inside the signed-in layout. */
export function usePortal(): { projectId: string; address: string; api: ApiRequest } {
  const { session, api } = usePortalSession();
  const projectId = useContext(ProjectContext);
  if (!session || !projectId) throw new Error('usePortal without a signed-in wallet');
  return { projectId, address: session.address, api };
}

export const ProjectContext = createContext<string | null>(null);
