import type { ServiceError } from '@grpc/grpc-js';
import { BadRequest, ErrorInfo, RetryInfo } from '../../gen/google/rpc/error_details';
import { Status } from '../../gen/google/rpc/status';

/**
 * What any gRPC client reads from a refused call: the google.rpc.Status in its
 * `grpc-status-details-bin` trailer and its details, decoded with the standard google.rpc types
 * only (not services/platform/grpc/errors.ts, whose reading is what this checks).
 */
export function standardStatusOf(error: unknown) {
  const trailer = (error as ServiceError).metadata.get('grpc-status-details-bin');
  if (trailer.length !== 1 || !Buffer.isBuffer(trailer[0])) throw new Error(`no grpc-status-details-bin trailer on ${String(error)}`);
  const status = Status.decode(trailer[0]);
  const unpack = <T>(name: string, type: { decode(input: Uint8Array): T }) =>
    status.details.filter((detail) => detail.typeUrl === `type.googleapis.com/google.rpc.${name}`).map((detail) => type.decode(detail.value));
  return {
    code: status.code,
    message: status.message,
    typeUrls: status.details.map((detail) => detail.typeUrl),
    errorInfo: unpack('ErrorInfo', ErrorInfo),
    badRequest: unpack('BadRequest', BadRequest),
    retryInfo: unpack('RetryInfo', RetryInfo),
    /** Trailers of our own making (the custom x-error-* metadata of before, say): none. */
    customTrailers: Object.keys((error as ServiceError).metadata.getMap()).filter((key) => key.startsWith('x-')),
  };
}
