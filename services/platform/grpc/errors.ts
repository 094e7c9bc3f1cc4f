import { Metadata, type ServiceError, status } from '@grpc/grpc-js';
import type { StatusObject } from '@grpc/grpc-js';
import type { Any } from '../../../gen/google/protobuf/any';
import { BadRequest, ErrorInfo, RetryInfo } from '../../../gen/google/rpc/error_details';
import { Status } from '../../../gen/google/rpc/status';
import { DomainError, type FieldViolation, UnavailableError } from '../../rules/errors';

/**
 * The one wire format for errors between services and the gateway, gRPC's standard error model:
 * the status code carries the kind and the message travels as the status message; the
 * `grpc-status-details-bin` trailer holds the same as a google.rpc.Status whose details are
 * ErrorInfo (the stable code, as `reason`), BadRequest (the field violations) and, for UNAVAILABLE,
 * RetryInfo (when to retry). Any gRPC client can read them with the standard google.rpc types.
 */
export const STATUS_DETAILS_TRAILER = 'grpc-status-details-bin';

/** ErrorInfo.domain: who defines the codes. One vocabulary for every service and the gateway. */
export const ERROR_DOMAIN = 'referral';

/** How an Any names a google.rpc message. */
export const GOOGLE_RPC_TYPE_URL = 'type.googleapis.com/google.rpc.';

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

interface MessageType<T> {
  encode(message: T): { finish(): Uint8Array };
  decode(input: Uint8Array): T;
}

function pack<T>(name: string, type: MessageType<T>, message: T): Any {
  return { typeUrl: `${GOOGLE_RPC_TYPE_URL}${name}`, value: Buffer.from(type.encode(message).finish()) };
}

export type GrpcErrorStatus = Partial<StatusObject> & { code: status };

/** Turns anything thrown by a handler into a gRPC status; unknown errors become INTERNAL. */
export function toGrpcStatus(error: unknown): { status: GrpcErrorStatus; internal: boolean } {
  if (error instanceof DomainError) {
    const code = STATUS_BY_KIND[error.kind];
    const details = [pack('ErrorInfo', ErrorInfo, { reason: error.code, domain: ERROR_DOMAIN, metadata: {} })];
    if (error.details.length > 0) {
      const fieldViolations = error.details.map(({ field, reason }) => ({ field, description: reason }));
      details.push(pack('BadRequest', BadRequest, { fieldViolations }));
    }
    if (error instanceof UnavailableError) {
      details.push(pack('RetryInfo', RetryInfo, { retryDelay: { seconds: String(error.retryAfterSeconds), nanos: 0 } }));
    }
    const metadata = new Metadata();
    metadata.set(STATUS_DETAILS_TRAILER, Buffer.from(Status.encode({ code, message: error.message, details }).finish()));
    return { status: { code, details: error.message, metadata }, internal: false };
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
  const remote: RemoteError = { grpcStatus: error.code, code: undefined, message: error.details, details: [], retryAfterSeconds: undefined };
  const trailer = error.metadata?.get(STATUS_DETAILS_TRAILER)[0];
  if (!Buffer.isBuffer(trailer)) return remote;
  try {
    for (const detail of Status.decode(trailer).details) {
      switch (detail.typeUrl) {
        case `${GOOGLE_RPC_TYPE_URL}ErrorInfo`: {
          const info = ErrorInfo.decode(detail.value);
          // A reason of another domain is not one of our codes.
          if (info.domain === ERROR_DOMAIN && info.reason) remote.code = info.reason;
          break;
        }
        case `${GOOGLE_RPC_TYPE_URL}BadRequest`:
          remote.details = BadRequest.decode(detail.value).fieldViolations.map(({ field, description }) => ({ field, reason: description }));
          break;
        case `${GOOGLE_RPC_TYPE_URL}RetryInfo`: {
          const delay = RetryInfo.decode(detail.value).retryDelay;
          const seconds = Math.ceil(Number(delay?.seconds ?? 0) + (delay?.nanos ?? 0) / 1e9);
          remote.retryAfterSeconds = Number.isSafeInteger(seconds) && seconds > 0 ? seconds : undefined;
          break;
        }
      }
    }
  } catch {
    // A trailer that does not decode tells nothing: the status code alone decides.
    return { ...remote, code: undefined, details: [], retryAfterSeconds: undefined };
  }
  return remote;
}
