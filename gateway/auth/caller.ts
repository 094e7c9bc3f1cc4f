import type { ApiKeyRole } from '../access/access.database';

/** Who a route requires. Project scoping is implied: a route under :projectId only admits that project's keys. */
export type AuthRequirement =
  | { kind: 'none' }
  | { kind: 'platform' }
  | { kind: 'api_key'; roles: readonly ApiKeyRole[] }
  /** A wallet session token (Sign-In with Ethereum): the route acts for that address only. */
  | { kind: 'session' };

export type Caller =
  | { kind: 'anonymous'; address: string }
  | { kind: 'platform' }
  | { kind: 'api_key'; keyId: string; projectId: string; role: ApiKeyRole }
  | { kind: 'session'; address: string };

export type CallerFor<A extends AuthRequirement> = A extends { kind: 'api_key' }
  ? Extract<Caller, { kind: 'api_key' }>
  : A extends { kind: 'session' }
    ? Extract<Caller, { kind: 'session' }>
    : A extends { kind: 'platform' }
      ? Extract<Caller, { kind: 'platform' }>
      : Extract<Caller, { kind: 'anonymous' }>;
