import type { UserRef } from '../../../gen/referral/common/v1/common';
import type { Caller } from '../../auth/caller';
import { HttpError } from '../../http/errors';
import { optionalIdentifierType } from './leaderboard-user';

/**
 * The user_or_session access rule of the routes that read or act for one user (the claim checks,
 * the payout movements): service_role keys may, read_only keys may read, and a wallet session acts
 * for its own wallet (docs/claims.md "Who acts for whom").
 */
export const userReader = { kind: 'user_or_session', roles: ['service_role', 'read_only'], project: 'key' } as const;

/** The 404 of a route under userReader: the project is the key's, or the session's `project_id`. */
export const PROJECT_NOT_FOUND = { description: 'PROJECT_NOT_FOUND: the project_id names no project (of the key)' };

export interface NamedUser {
  identifier: string | undefined;
  identifierType: string | undefined;
  /** How the request names the identifier, for error details. */
  field: string;
}

/**
 * The project and the user a request acts for. An API key must name the user; a wallet session acts
 * for its own address and may name only that.
 */
export function actingFor(caller: Extract<Caller, { kind: 'api_key' | 'session' }>, named: NamedUser): { projectId: string; user: UserRef } {
  if (caller.kind === 'session') {
    const own = named.identifier === undefined || named.identifier === caller.address;
    const evm = named.identifierType === undefined || named.identifierType === 'evm_address';
    if (!own || !evm)
      throw new HttpError(403, 'FORBIDDEN', 'a wallet session acts for its own wallet only: leave the user out, or name the signed-in address');
    return { projectId: caller.projectId, user: { identifier: caller.address, identifierType: 'evm_address' } };
  }
  if (named.identifier === undefined) {
    throw new HttpError(400, 'VALIDATION_FAILED', `${named.field}: is required with an API key (it names the user acted for)`, [
      { field: named.field, reason: 'is required with an API key' },
    ]);
  }
  return { projectId: caller.projectId, user: { identifier: named.identifier, identifierType: named.identifierType ?? 'evm_address' } };
}

/** The user the payout and points reads name in their query: `user_identifier`, its type `user_identifier_type` or `identifier_type`. */
export function userOfQuery(query: { user_identifier?: string; user_identifier_type?: string; identifier_type?: string }): NamedUser {
  return { identifier: query.user_identifier, identifierType: optionalIdentifierType(query), field: 'user_identifier' };
}
