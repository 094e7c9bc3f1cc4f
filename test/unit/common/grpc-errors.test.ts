import { Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { ErrorInfo } from '../../../gen/google/rpc/error_details';
import { Status } from '../../../gen/google/rpc/status';
import { invalidFields, NotFoundError, UnavailableError } from '../../../services/rules/errors';
import { readGrpcError, toGrpcStatus } from '../../../services/platform/grpc/errors';

/** What the calling side makes of a status, whatever its trailer holds (the transport itself: test/tax/tax-status-rpc.test.ts). */
describe('reading a refused call', () => {
  const refusal = (code: status, message: string, metadata: Metadata): ServiceError =>
    Object.assign(new Error(message), { code, details: message, metadata });
  const asReceived = (error: unknown) => {
    const { status: sent } = toGrpcStatus(error);
    return refusal(sent.code, sent.details!, sent.metadata!);
  };

  it('reads back the code, field violations and retry delay that the service sent', () => {
    expect(readGrpcError(asReceived(invalidFields([{ field: 'entries[3].identifier', reason: 'is not an evm_address' }])))).toEqual({
      grpcStatus: status.INVALID_ARGUMENT,
      code: 'VALIDATION_FAILED',
      message: 'entries[3].identifier: is not an evm_address',
      details: [{ field: 'entries[3].identifier', reason: 'is not an evm_address' }],
      retryAfterSeconds: undefined,
    });
    expect(readGrpcError(asReceived(new UnavailableError('QUEUE_UNAVAILABLE', 'nothing was stored', 7)))).toMatchObject({
      grpcStatus: status.UNAVAILABLE,
      code: 'QUEUE_UNAVAILABLE',
      retryAfterSeconds: 7,
    });
    expect(readGrpcError(asReceived(new NotFoundError('SEGMENT_NOT_FOUND', 'no segment')))).toMatchObject({ code: 'SEGMENT_NOT_FOUND', details: [] });
  });

  it('takes only the status code from a call without details, with a trailer that does not decode, or with a reason of another domain', () => {
    const metadata = (trailer?: Buffer) => {
      const value = new Metadata();
      if (trailer) value.set('grpc-status-details-bin', trailer);
      return value;
    };
    const foreign = Status.encode({
      code: status.NOT_FOUND,
      message: 'gone',
      details: [
        {
          typeUrl: 'type.googleapis.com/google.rpc.ErrorInfo',
          value: Buffer.from(ErrorInfo.encode({ reason: 'GONE', domain: 'example.com', metadata: {} }).finish()),
        },
      ],
    }).finish();
    for (const trailer of [undefined, Buffer.from([0xff, 0xff, 0xff]), Buffer.from(foreign)]) {
      expect(readGrpcError(refusal(status.NOT_FOUND, 'gone', metadata(trailer)))).toEqual({
        grpcStatus: status.NOT_FOUND,
        code: undefined,
        message: 'gone',
        details: [],
        retryAfterSeconds: undefined,
      });
    }
  });

  it('sends nothing but INTERNAL and a generic message for an error that is not a domain error', () => {
    expect(toGrpcStatus(new Error('SELECT * FROM secrets failed'))).toEqual({
      status: { code: status.INTERNAL, details: 'internal error' },
      internal: true,
    });
  });
});
