import type { UserIdentifier } from '../../common/identifiers';
import type { Logger } from '../../common/logger';

/** A user of a project, as the condition inputs key it (the same canonical form as entries). */
export type UserRef = UserIdentifier;

/**
 * Told after a commit changed what dynamic conditions read for some users (their traits, or their
 * metrics projected from the claim and agency events): the incremental matching (issue 11 §2)
 * re-evaluates exactly those users against the project's dynamic segments. Called AFTER the commit,
 * so what it reads is there; the users are distinct and of one project. Implementations should be
 * quick (queue the work, debounce) since a request or an event delivery waits for them.
 */
export interface ConditionInputsListener {
  onUsersChanged(projectId: string, users: readonly UserRef[]): Promise<void>;
}

/** Until matching is wired, nobody listens. */
export const NO_CONDITION_INPUTS_LISTENER: ConditionInputsListener = { onUsersChanged: async () => undefined };

/**
 * Tells the listener, with each user once. What changed is already committed and stays whatever
 * the listener does: a failure is logged, not thrown, so it never turns a stored write into an
 * error (a full evaluation of the segment catches the user up).
 */
export async function tellUsersChanged(listener: ConditionInputsListener, logger: Logger, projectId: string, users: readonly UserRef[]): Promise<void> {
  const distinct = distinctUsers(users);
  if (distinct.length === 0) return;
  try {
    await listener.onUsersChanged(projectId, distinct);
  } catch (error) {
    logger.error({ err: error, project_id: projectId, users: distinct.length }, 'users whose condition inputs changed could not be queued for re-evaluation');
  }
}

/** One string per user, to gather users without repeats. */
export function userKey(user: UserRef): string {
  return `${user.identifierType}\u0000${user.identifier}`;
}

export function distinctUsers(users: readonly UserRef[]): UserRef[] {
  const byKey = new Map<string, UserRef>();
  for (const user of users) byKey.set(userKey(user), user);
  return [...byKey.values()];
}
