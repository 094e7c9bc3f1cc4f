import { AgencyServiceClient } from '../../gen/referral/agency/v1/agency';
import { AudienceServiceClient } from '../../gen/referral/audience/v1/audience';
import { ClaimServiceClient } from '../../gen/referral/claim/v1/claim';
import { TaxServiceClient } from '../../gen/referral/tax/v1/tax';
import { createGrpcClient, type GrpcClient } from '../../services/platform/grpc/client';
import { isServiceError, type RemoteError, readGrpcError } from '../../services/platform/grpc/errors';
import { lateBound } from './late-bound';

/** gRPC clients of a test stack's services, for tests that call them directly (as only the gateway does otherwise). */
export interface ServiceClients {
  tax: GrpcClient<TaxServiceClient>['call'];
  audience: GrpcClient<AudienceServiceClient>['call'];
  agency: GrpcClient<AgencyServiceClient>['call'];
  claim: GrpcClient<ClaimServiceClient>['call'];
  close(): void;
}

export function serviceClients(stack: { grpcAddresses: { tax: string; audience: string; agency: string; claim: string } }): ServiceClients {
  const tax = createGrpcClient(TaxServiceClient, stack.grpcAddresses.tax, 5_000);
  const audience = createGrpcClient(AudienceServiceClient, stack.grpcAddresses.audience, 5_000);
  const agency = createGrpcClient(AgencyServiceClient, stack.grpcAddresses.agency, 5_000);
  const claim = createGrpcClient(ClaimServiceClient, stack.grpcAddresses.claim, 5_000);
  return {
    tax: tax.call,
    audience: audience.call,
    agency: agency.call,
    claim: claim.call,
    close: () => {
      tax.close();
      audience.close();
      agency.close();
      claim.close();
    },
  };
}

/**
 * serviceClients as hooks: opened on the started `stack` before the file's tests, closed after them. Call it
 * inside the file's describe after useStackWithProject; returns a stand-in that answers once the hooks ran.
 */
export function useServiceClients(stack: Parameters<typeof serviceClients>[0]): ServiceClients {
  let clients: ServiceClients | undefined;
  beforeAll(() => {
    clients = serviceClients(stack);
  });
  afterAll(() => clients?.close());
  return lateBound(() => {
    if (!clients) throw new Error('the service clients are not open yet (they were asked for outside the tests and hooks)');
    return clients;
  });
}

/** The error a call is refused with, as the gateway reads it; a call that succeeds fails the test. */
export async function grpcRefusal(call: Promise<unknown>): Promise<RemoteError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isServiceError(error)) throw new Error(`expected a gRPC error, got ${String(error)}`);
  return readGrpcError(error);
}
