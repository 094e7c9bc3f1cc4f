import { ConflictError, NotFoundError } from '../../rules/errors';

export function taxInfoNotFound(): NotFoundError {
  return new NotFoundError('TAX_INFO_NOT_FOUND', 'no tax information has been submitted for this user in this project');
}

/** The one refusal of the state machine: 409 with a stable code and the state that forbids it. */
export function invalidTransition(message: string): ConflictError {
  return new ConflictError('TAX_INFO_INVALID_TRANSITION', message);
}
