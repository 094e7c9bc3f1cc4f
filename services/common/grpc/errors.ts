import { Metadata, type ServiceError, status } from '@grpc/grpc-js';
import type { StatusObject } from '@grpc/grpc-js';
import { DomainError, type FieldViolation, UnavailableError } from '../errors';

/**
 * The one wire format for errors between services and the gateway: the gRPC status carries
 * the kind, the message travels as the status details, and the stable code and field
 * violations ride in trailing metadata.
 */
const CODE_KEY = 'x-error-code';
const DETAILS_KEY = 'x-error-details-bin';
const RETRY_AFTER_KEY = 'x-retry-after-seconds';

const STATUS_BY_KIND: Record<DomainError['kind'], status> = {
  invalid_argument: status.INVALID_ARGUMENT,
  failed_precondition: status.FAILED_PRECONDITION,
  not_found: status.NOT_FOUND,
  already_exists: status.ALREADY_EXISTS,
  conflict: status.ABORTED,
  permission_denied: status.PERMISSION_DENIED,
  unauthenticated: status.UNAUTHENTICATED,
  resource_exhausted: status.RESOURCE_EXHAUSTED,
  unavailable: status.UNAVAILABLE,
};

export type GrpcErrorStatus = Partial<StatusObject> & { code: status };

/** Turns anything thrown by a handler into a gRPC status; unknown errors become INTERNAL. */
export function toGrpcStatus(error: unknown): { status: GrpcErrorStatus; internal: boolean } {
  if (error instanceof DomainError) {
    const metadata = new Metadata();
    metadata.set(CODE_KEY, error.code);
    if (error.details.length > 0) metadata.set(DETAILS_KEY, Buffer.from(JSON.stringify(error.details)));
    if (error instanceof UnavailableError) metadata.set(RETRY_AFTER_KEY, String(error.retryAfterSeconds));
    return { status: { code: STATUS_BY_KIND[error.kind], details: error.message, metadata }, internal: false };
  }
  return { status: { code: status.INTERNAL, details: 'internal error' }, internal: true };
}

export interface RemoteError {
  grpcStatus: status;
  code: string | undefined;
  message: string;
  details: FieldViolation[];
  /** Set by a service that refused with UNAVAILABLE and said when to retry. */
  retryAfterSeconds: number | undefined;
}

export function isServiceError(error: unknown): error is ServiceError {
  return error instanceof Error && typeof (error as ServiceError).code === 'number' && 'metadata' in error;
}

/** Reads what toGrpcStatus wrote, on the calling side. */
export function readGrpcError(error: ServiceError): RemoteError {
  const code = error.metadata?.get(CODE_KEY)[0];
  const rawDetails = error.metadata?.get(DETAILS_KEY)[0];
  const retryAfter = Number(error.metadata?.get(RETRY_AFTER_KEY)[0]);
  let details: FieldViolation[] = [];
  if (Buffer.isBuffer(rawDetails)) {
    try {
      details = JSON.parse(rawDetails.toString('utf8')) as FieldViolation[];
    } catch {
      details = [];
    }
  }
  return {
    grpcStatus: error.code,
    code: typeof code === 'string' ? code : undefined,
    message: error.details,
    details,
    retryAfterSeconds: Number.isInteger(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  };
}
