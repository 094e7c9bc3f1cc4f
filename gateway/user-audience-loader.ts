import type { AudienceServiceClient, UserAudience } from '../gen/referral/audience/v1/audience';
import { Batcher } from '../services/platform/batcher';
import { InvalidArgumentError } from '../services/rules/errors';
import type { GrpcClient } from '../services/platform/grpc/client';

export interface UserAudienceKey {
  projectId: string;
  identifier: string;
  identifierType: string;
}

/** Lookups per gRPC call (well under the service's limit of 1,000), and calls under way at once. */
const BATCHING = { maxBatchSize: 200, maxInFlight: 4 };

/**
 * The user lookup is the hot path: concurrent lookups (of any projects) travel to the audience
 * service in one gRPC call, answered there with one query. A lookup the service refuses (an
 * invalid identifier) fails alone, with the service's code and field details.
 */
export function createUserAudienceLoader(audience: GrpcClient<AudienceServiceClient>['call']): Batcher<UserAudienceKey, UserAudience[]> {
  return new Batcher<UserAudienceKey, UserAudience[]>(async (keys) => {
    const response = await audience.getUserAudiences({
      lookups: keys.map((key) => ({
        projectId: key.projectId,
        user: { identifier: key.identifier, identifierType: key.identifierType },
      })),
    });
    return response.results.map((result) =>
      result.error ? new InvalidArgumentError(result.error.code, result.error.message, result.error.details) : result.audiences,
    );
  }, BATCHING);
}
