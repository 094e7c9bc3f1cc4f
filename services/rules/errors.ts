/**
 * The small, typed set of errors domain code throws. Transport layers map them to gRPC
 * status (services/platform/grpc/errors.ts) and from there to HTTP (gateway/http/errors.ts).
 * `code` is stable and machine-readable; `message` is a sentence a person can act on.
 */
export interface FieldViolation {
  field: string;
  reason: string;
}

/** Violations one error lists at most (its message still counts them all). */
export const MAX_LISTED_VIOLATIONS = 100;

export abstract class DomainError extends Error {
  abstract readonly kind:
    | 'invalid_argument'
    | 'failed_precondition'
    | 'not_found'
    | 'already_exists'
    | 'conflict'
    | 'permission_denied'
    | 'unauthenticated'
    | 'resource_exhausted'
    | 'unavailable';

  constructor(
    readonly code: string,
    message: string,
    readonly details: FieldViolation[] = [],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidArgumentError extends DomainError {
  readonly kind = 'invalid_argument';
}

/** The request is well formed but the resource is not in a state that allows it. */
export class FailedPreconditionError extends DomainError {
  readonly kind = 'failed_precondition';
}

export class NotFoundError extends DomainError {
  readonly kind = 'not_found';
}

export class AlreadyExistsError extends DomainError {
  readonly kind = 'already_exists';
}

/** The resource's current state forbids the change (e.g. approving a revoked form): 409. */
export class ConflictError extends DomainError {
  readonly kind = 'conflict';
}

/** The caller may not do this: 403. No domain refuses by role today (the gateway does); kept so every kind has its error. @public */
export class PermissionDeniedError extends DomainError {
  readonly kind = 'permission_denied';
}

export class UnauthenticatedError extends DomainError {
  readonly kind = 'unauthenticated';
}

export class ResourceExhaustedError extends DomainError {
  readonly kind = 'resource_exhausted';
}

/** What `Retry-After` says when nothing more precise is known. */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

/**
 * A dependency (Redis, a lock held by other work) cannot serve the request now; retrying later
 * may succeed. The message must say what happened to the request (e.g. that nothing was stored).
 * Answered 503 with `Retry-After`.
 */
export class UnavailableError extends DomainError {
  readonly kind = 'unavailable';

  constructor(
    code: string,
    message: string,
    /** When a retry may succeed, in seconds (the `Retry-After` header). */
    readonly retryAfterSeconds = DEFAULT_RETRY_AFTER_SECONDS,
  ) {
    super(code, message);
  }
}

/** Shorthand for the common case of one or more bad fields. */
export function invalidFields(details: FieldViolation[], message?: string): InvalidArgumentError {
  const summary = message ?? (details.length === 1 ? `${details[0]!.field}: ${details[0]!.reason}` : `${details.length} fields are invalid`);
  return new InvalidArgumentError('VALIDATION_FAILED', summary, details);
}

/**
 * A field rule whose violations answer a code of their own (AMOUNT_OUT_OF_RANGE, ...) when they are
 * all that is wrong with a request, so a caller can tell that case by its code; with any other
 * problem besides, the request answers VALIDATION_FAILED listing them all. The rule knows its
 * violations by identity: make them with `violation`.
 */
export class FieldRule {
  private readonly made = new WeakSet<FieldViolation>();

  constructor(readonly code: string) {}

  violation(field: string, reason: string): FieldViolation {
    const violation = { field, reason };
    this.made.add(violation);
    return violation;
  }

  owns(violation: FieldViolation): boolean {
    return this.made.has(violation);
  }
}

/** The error of a request with these violations (at least one): the code of the rule that made them all, else VALIDATION_FAILED. */
export function refuseFields(details: FieldViolation[], rules: readonly FieldRule[]): InvalidArgumentError {
  const error = invalidFields(details);
  const rule = details.length === 0 ? undefined : rules.find((candidate) => details.every((violation) => candidate.owns(violation)));
  return rule ? new InvalidArgumentError(rule.code, error.message, details) : error;
}
