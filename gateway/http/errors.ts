import { status as GrpcStatus } from '@grpc/grpc-js';
import type { ErrorRequestHandler } from 'express';
import { ZodError, type z } from 'zod';
import { DEFAULT_RETRY_AFTER_SECONDS, DomainError, type FieldViolation, UnavailableError } from '../../services/rules/errors';
import { isServiceError, readGrpcError, toGrpcStatus } from '../../services/platform/grpc/errors';
import type { Logger } from '../../services/platform/logger';

/** The one error body of the API (docs/api-conventions.md). */
export interface ErrorBody {
  status: number;
  code: string;
  message: string;
  details: FieldViolation[];
}

/** An error raised by the gateway itself, already in HTTP terms. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: FieldViolation[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** gRPC status -> HTTP status, as docs/api-conventions.md lays it down. */
const HTTP_STATUS_BY_GRPC: Partial<Record<GrpcStatus, number>> = {
  [GrpcStatus.INVALID_ARGUMENT]: 400,
  [GrpcStatus.FAILED_PRECONDITION]: 400,
  [GrpcStatus.OUT_OF_RANGE]: 400,
  [GrpcStatus.UNAUTHENTICATED]: 401,
  [GrpcStatus.PERMISSION_DENIED]: 403,
  [GrpcStatus.NOT_FOUND]: 404,
  [GrpcStatus.ALREADY_EXISTS]: 409,
  [GrpcStatus.ABORTED]: 409,
  [GrpcStatus.RESOURCE_EXHAUSTED]: 429,
  [GrpcStatus.INTERNAL]: 500,
  [GrpcStatus.UNAVAILABLE]: 503,
  [GrpcStatus.DEADLINE_EXCEEDED]: 504,
};

/** The HTTP status of a gRPC status code (e.g. of one refused item of a batch, which travels as a number). */
export function httpStatusOf(grpcStatus: number): number {
  return HTTP_STATUS_BY_GRPC[grpcStatus as GrpcStatus] ?? 500;
}

const DEFAULT_CODE_BY_HTTP: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  500: 'INTERNAL',
  503: 'SERVICE_UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const GENERIC_MESSAGE_BY_HTTP: Record<number, string> = {
  500: 'something went wrong on our side; the request id identifies it in our logs',
  503: 'a service this request needs is not available; try again shortly',
  // The request may still take effect: say so, rather than imply that nothing happened.
  504: 'a service this request needs did not answer in time, so whether the request took effect is unknown; retry it (with the same Idempotency-Key where the endpoint takes one)',
};

export function zodDetails(error: ZodError | z.core.$ZodError, prefix?: string): FieldViolation[] {
  const fieldName = (path: PropertyKey[]) => {
    const joined = path.reduce<string>(
      (acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part)),
      '',
    );
    return [prefix, joined].filter(Boolean).join('.') || '(body)';
  };
  return error.issues.flatMap((issue) =>
    // Unknown fields are named one by one, so the client sees exactly what to drop.
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ field: fieldName([...issue.path, key]), reason: 'is not a known field' }))
      : [{ field: fieldName(issue.path), reason: issue.message }],
  );
}

/** What toErrorBody makes of an error: the body, whether it is ours to log, and for a 503 when to retry. */
export interface MappedError {
  body: ErrorBody;
  internal: boolean;
  retryAfterSeconds?: number;
}

/** Maps anything thrown while serving a request to the error body; nothing internal leaks. */
export function toErrorBody(error: unknown): MappedError {
  if (error instanceof HttpError) {
    return { body: { status: error.status, code: error.code, message: error.message, details: error.details }, internal: false };
  }
  if (error instanceof ZodError) {
    const details = zodDetails(error);
    return { body: { status: 400, code: 'VALIDATION_FAILED', message: summarise(details), details }, internal: false };
  }
  if (error instanceof DomainError) {
    // The gateway's own domain (projects, keys) uses the same typed errors as the services.
    const { status } = toGrpcStatus(error);
    const retryAfterSeconds = error instanceof UnavailableError ? error.retryAfterSeconds : undefined;
    return { ...fromRemote(status.code, error.code, error.message, error.details), retryAfterSeconds };
  }
  if (isServiceError(error)) {
    const remote = readGrpcError(error);
    return { ...fromRemote(remote.grpcStatus, remote.code, remote.message, remote.details), retryAfterSeconds: remote.retryAfterSeconds };
  }
  if (error instanceof URIError) {
    // Thrown by the router while decoding a path parameter (%ff, a truncated %E0%A4, UTF-8 of a surrogate).
    return {
      body: {
        status: 400,
        code: 'INVALID_PATH_ENCODING',
        message: 'the path holds a malformed percent-encoding: each %XX must encode a byte of valid UTF-8',
        details: [],
      },
      internal: false,
    };
  }
  const bodyParserError = error as { type?: string; status?: number; expose?: boolean };
  if (bodyParserError?.type === 'entity.too.large') {
    return {
      body: { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'the request body is larger than this endpoint accepts', details: [] },
      internal: false,
    };
  }
  if (bodyParserError?.type === 'entity.parse.failed') {
    return { body: { status: 400, code: 'INVALID_JSON', message: 'the request body is not valid JSON', details: [] }, internal: false };
  }
  if (bodyParserError?.expose && typeof bodyParserError.status === 'number' && bodyParserError.status >= 400 && bodyParserError.status < 500) {
    const status = bodyParserError.status;
    return {
      body: { status, code: DEFAULT_CODE_BY_HTTP[status] ?? 'BAD_REQUEST', message: 'the request could not be read', details: [] },
      internal: false,
    };
  }
  return { body: { status: 500, code: 'INTERNAL', message: GENERIC_MESSAGE_BY_HTTP[500]!, details: [] }, internal: true };
}

function fromRemote(
  grpcStatus: GrpcStatus,
  code: string | undefined,
  message: string,
  details: FieldViolation[],
): { body: ErrorBody; internal: boolean } {
  const status = HTTP_STATUS_BY_GRPC[grpcStatus] ?? 500;
  const generic = GENERIC_MESSAGE_BY_HTTP[status];
  if (code === undefined || status === 500 || status === 504) {
    // A service's own messages are shown only for the errors it chose to raise (a 503 such as
    // "the queue is unavailable, nothing was stored" is one; INTERNAL and deadlines never are).
    return {
      body: { status, code: DEFAULT_CODE_BY_HTTP[status] ?? 'INTERNAL', message: generic ?? message, details: generic ? [] : details },
      internal: status >= 500,
    };
  }
  return { body: { status, code, message, details }, internal: false };
}

function summarise(details: FieldViolation[]): string {
  const first = details[0];
  if (!first) return 'the request is invalid';
  return details.length === 1 ? `${first.field}: ${first.reason}` : `${first.field}: ${first.reason} (and ${details.length - 1} more)`;
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const { body, internal, retryAfterSeconds } = toErrorBody(error);
    if (internal) logger.error({ err: error, method: req.method, path: req.path }, 'request failed');
    if (res.headersSent) return;
    if (error instanceof HttpError) res.set(error.headers);
    // Every 503 says when to come back (docs/failures.md: a dependency being down is a fast 503 with Retry-After).
    if (body.status === 503 && !res.get('Retry-After')) res.set('Retry-After', String(retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS));
    res.status(body.status).json(body);
  };
}
