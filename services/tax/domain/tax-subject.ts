import { ConflictError, NotFoundError } from '../../rules/errors';
import { isUuid } from '../../rules/ids';
import { normalizeIdentifier, type UserIdentifier } from '../../rules/identifiers';

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

/** The project, and the user in its canonical form (an invalid identifier is refused naming `user.…`). */
export function taxSubject(projectId: string, user: UserInput): TaxSubject {
  return { projectId: requireProjectId(projectId), user: normalizeIdentifier(user.identifier, user.identifierType, 'user') };
}

export function taxInfoNotFound(): NotFoundError {
  return new NotFoundError('TAX_INFO_NOT_FOUND', 'no tax information has been submitted for this user in this project');
}

/** The one refusal of the state machine: 409 with a stable code and the state that forbids it. */
export function invalidTransition(message: string): ConflictError {
  return new ConflictError('TAX_INFO_INVALID_TRANSITION', message);
}
