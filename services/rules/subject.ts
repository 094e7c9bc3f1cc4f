import { NotFoundError } from './errors';
import { normalizeIdentifier, type UserIdentifier } from './identifiers';
import { isUuid } from './ids';

/** A user as a request names it, before its identifier is checked. */
export interface UserInput {
  identifier: string;
  identifierType: string;
}

/** What a call is about: a project, and a user in it in its canonical form. */
export interface Subject {
  projectId: string;
  user: UserIdentifier;
}

/** Projects are UUIDs; anything else names no project (and must never reach a uuid column). */
export function requireProjectId(projectId: string): string {
  if (!isUuid(projectId)) throw new NotFoundError('PROJECT_NOT_FOUND', 'no project with this id');
  return projectId;
}

/** The project, and the user in its canonical form (an invalid identifier is refused naming `user.…`). */
export function subject(projectId: string, user: UserInput): Subject {
  return { projectId: requireProjectId(projectId), user: normalizeIdentifier(user.identifier, user.identifierType, 'user') };
}
