import type { ApiKeyRole } from '../access/access.database';

/**
 * Who a route requires, and which project a request acts in. Scoping is declared, never implied:
 * - `project: 'path'`: the project is the path's `:projectId`. An API key of another project is
 *   answered 404 (a foreign id is never confirmed to exist); a wallet session needs the project to exist.
 * - `project: 'key'`: the project is the API key's own; the path names none.
 * defineRoute (gateway/http/route.ts) allows 'path' exactly on paths with `:projectId`, so a route
 * under a project cannot be left unscoped, and a route without one cannot pretend to be scoped.
 */
export type AuthRequirement =
  | { kind: 'none' }
  | { kind: 'platform' }
  | { kind: 'api_key'; roles: readonly ApiKeyRole[]; project: 'path' | 'key' }
  /** A wallet session token (Sign-In with Ethereum): the route acts for that address only. */
  | { kind: 'session'; project: 'path' }
  /**
   * Acting for a user (the claim-check paths of the Fuul SDK): either a project API key of one of
   * `roles`, in the key's project, for the user the request names; or a wallet session token, for
   * its own wallet, in the project the `project_id` query parameter names.
   */
  | { kind: 'user_or_session'; roles: readonly ApiKeyRole[]; project: 'key' };

export type Caller =
  | { kind: 'anonymous'; address: string }
  | { kind: 'platform' }
  /** projectId: the project the request acts in (the key's, which is also the path's when scoped by path). */
  | { kind: 'api_key'; keyId: string; projectId: string; role: ApiKeyRole }
  /** projectId: the project the path names, which exists. */
  | { kind: 'session'; address: string; projectId: string };

export type CallerFor<A extends AuthRequirement> = A extends { kind: 'user_or_session' }
  ? Extract<Caller, { kind: 'api_key' | 'session' }>
  : A extends { kind: 'api_key' }
    ? Extract<Caller, { kind: 'api_key' }>
    : A extends { kind: 'session' }
      ? Extract<Caller, { kind: 'session' }>
      : A extends { kind: 'platform' }
        ? Extract<Caller, { kind: 'platform' }>
        : Extract<Caller, { kind: 'anonymous' }>;
