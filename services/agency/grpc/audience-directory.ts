import { status as GrpcStatus } from '@grpc/grpc-js';
import type { AudienceServiceClient } from '../../../gen/referral/audience/v1/audience';
import { SegmentType } from '../../../gen/referral/audience/v1/enums';
import { UnavailableError } from '../../rules/errors';
import type { GrpcClient } from '../../platform/grpc/client';
import { isServiceError, readGrpcError } from '../../platform/grpc/errors';
import type { AudienceDirectory, SegmentSummary } from '../domain/audience-directory';

type AudienceCalls = GrpcClient<AudienceServiceClient>['call'];

/**
 * The agency's view of the audience service, over its generated gRPC client (every call has a
 * deadline). NOT_FOUND is an answer (no such segment); a service that cannot answer is an
 * UnavailableError that names what happened to the request, so callers fail cleanly and retry.
 */
export class GrpcAudienceDirectory implements AudienceDirectory {
  constructor(private readonly audience: AudienceCalls) {}

  async segment(projectId: string, segmentId: string): Promise<SegmentSummary | undefined> {
    try {
      const segment = await this.audience.getSegment({ projectId, segmentId });
      return {
        id: segment.id,
        name: segment.name,
        type: segment.type === SegmentType.DYNAMIC ? 'dynamic' : 'static',
        tierRank: segment.tierRank ?? null,
      };
    } catch (error) {
      if (isServiceError(error) && error.code === GrpcStatus.NOT_FOUND) return undefined;
      throw unavailable(error);
    }
  }
}

/** A failed call as the agency answers it: the audience service's own refusal, or unavailable. */
function unavailable(error: unknown): Error {
  if (!isServiceError(error)) return error instanceof Error ? error : new Error(String(error));
  const remote = readGrpcError(error);
  return new UnavailableError(
    'AUDIENCE_UNAVAILABLE',
    `the audience service could not answer (${remote.message}); nothing was changed, try again`,
    remote.retryAfterSeconds,
  );
}
