import { HttpError } from '../../http/errors';

/**
 * The identifier's type, under the name this API gives it or the one the Fuul SDK sends (which
 * must then agree); evm_address when neither is given.
 */
export function identifierType(query: { user_identifier_type?: string | undefined; identifier_type?: string | undefined }): string {
  const { user_identifier_type: ours, identifier_type: sdk } = query;
  if (ours !== undefined && sdk !== undefined && ours !== sdk) {
    throw new HttpError(400, 'VALIDATION_FAILED', 'user_identifier_type and identifier_type name the same thing and disagree: send one', [
      { field: 'identifier_type', reason: 'differs from user_identifier_type' },
    ]);
  }
  return ours ?? sdk ?? 'evm_address';
}

/** As identifierType, but undefined when neither name is sent (the caller's default applies: a wallet session's own type). */
export function optionalIdentifierType(query: {
  user_identifier_type?: string | undefined;
  identifier_type?: string | undefined;
}): string | undefined {
  return query.user_identifier_type === undefined && query.identifier_type === undefined ? undefined : identifierType(query);
}

/** The user whose own entry is asked for: user_identifier, or user_address (the Fuul SDK's deprecated name), which must then agree. */
export function leaderboardUser(query: { user_identifier?: string | undefined; user_address?: string | undefined }): string | undefined {
  const { user_identifier: identifier, user_address: address } = query;
  if (identifier !== undefined && address !== undefined && identifier !== address) {
    throw new HttpError(400, 'VALIDATION_FAILED', 'user_identifier and user_address name the same thing and disagree: send one', [
      { field: 'user_address', reason: 'differs from user_identifier' },
    ]);
  }
  return identifier ?? address;
}
