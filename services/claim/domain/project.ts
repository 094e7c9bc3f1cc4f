import { NotFoundError } from '../../rules/errors';
import { isUuid } from '../../rules/ids';

/** Projects are UUIDs; anything else names no project (and must never reach a uuid column). */
export function requireProjectId(projectId: string): string {
  if (!isUuid(projectId)) throw new NotFoundError('PROJECT_NOT_FOUND', 'no project with this id');
  return projectId;
}
