import { createContext, useContext, useMemo, useRef, useState, type ReactNode } from 'react';
import { ApiError, type ApiRequest, createApiClient } from '../api/client';

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
  /**
   * True once the API refused the session's token (401: it expired). The screens stay as they are,
   * with what was typed in them, and the layout offers to sign in again with the same wallet.
   */
  expired: boolean;
  /** Requests with the wallet's session token. */
  api: ApiRequest;
  signIn(session: WalletSession): void;
  signOut(): void;
}

const SessionContext = createContext<PortalSession | null>(null);

export function PortalSessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState(readSession);
  const [expired, setExpired] = useState(false);
  // Read at each request: a query or mutation made before signing in again sends the new token when retried.
  const token = useRef(session?.token ?? null);
  const api = useMemo<ApiRequest>(() => {
    const request = createApiClient(() => token.current);
    return async (method, path, options) => {
      try {
        return await request(method, path, options);
      } catch (error) {
        if (error instanceof ApiError && error.status === 401 && token.current) setExpired(true);
        throw error;
      }
    };
  }, []);
  const value = useMemo<PortalSession>(
    () => ({
      session,
      expired,
      api,
      signIn(next) {
        sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
        token.current = next.token;
        setSession(next);
        setExpired(false);
      },
      signOut() {
        sessionStorage.removeItem(STORAGE_KEY);
        token.current = null;
        setSession(null);
        setExpired(false);
      },
    }),
    [session, expired, api],
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

/** Whether an error is the API refusing an expired session: the layout already says so, and offers to sign in again. */
export function isSessionRefusal(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401;
}

export const ProjectContext = createContext<string | null>(null);
