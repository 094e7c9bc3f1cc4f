import { ConflictError, invalidFields, NotFoundError } from '../../common/errors';
import { isUuid } from '../../common/ids';
import { normalizeIdentifier, type UserIdentifier } from '../../common/identifiers';

/** Whose tax information a call is about: a project, and a user in it. */
export interface TaxSubject {
  projectId: string;
  user: UserIdentifier;
}

export interface UserInput {
  identifier: string;
  identifierType: string;
}

/** Projects are UUIDs; anything else names no project (and must never reach a uuid column). */
export function requireProjectId(projectId: string): string {
  if (!isUuid(projectId)) throw new NotFoundError('PROJECT_NOT_FOUND', 'no project with this id');
  return projectId;
}

export function requireUser(user: UserInput | undefined, path = 'user'): UserIdentifier {
  if (!user) throw invalidFields([{ field: path, reason: 'is required' }]);
  return normalizeIdentifier(user.identifier, user.identifierType, path);
}

export function taxSubject(projectId: string, user: UserInput | undefined): TaxSubject {
  return { projectId: requireProjectId(projectId), user: requireUser(user) };
}

export function taxInfoNotFound(): NotFoundError {
  return new NotFoundError('TAX_INFO_NOT_FOUND', 'no tax information has been submitted for this user in this project');
}

/** The one refusal of the state machine: 409 with a stable code and the state that forbids it. */
export function invalidTransition(message: string): ConflictError {
  return new ConflictError('TAX_INFO_INVALID_TRANSITION', message);
}
