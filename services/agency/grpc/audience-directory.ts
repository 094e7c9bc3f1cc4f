import { status as GrpcStatus } from '@grpc/grpc-js';
import type { AudienceServiceClient } from '../../../gen/referral/audience/v1/audience';
import { SegmentType } from '../../../gen/referral/audience/v1/enums';
import { UnavailableError } from '../../common/errors';
import type { GrpcClient } from '../../common/grpc/client';
import { isServiceError, readGrpcError } from '../../common/grpc/errors';
import type { UserIdentifier } from '../../common/identifiers';
import type { AudienceDirectory, SegmentSummary, TierLookup, TierView } from '../domain/audience-directory';

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

  /**
   * One GetUserTiers call for all the users, and the named tiers (protected ones: a handful per
   * call at most) read beside it. A lookup the audience service refuses alone (it never should: the
   * agency sends canonical users) fails the whole answer rather than read as "no tier".
   */
  async tiers(projectId: string, users: readonly UserIdentifier[], tierIds: readonly string[]): Promise<TierLookup> {
    const [answer, named] = await Promise.all([
      users.length === 0
        ? Promise.resolve({ results: [] })
        : this.audience.getUserTiers({ lookups: users.map((user) => ({ projectId, user })) }).catch((error: unknown) => {
            throw unavailable(error);
          }),
      Promise.all(tierIds.map((id) => this.segment(projectId, id))),
    ]);
    const current = answer.results.map((result, index) => {
      if (result.error) throw new UnavailableError('AUDIENCE_UNAVAILABLE', `the audience service could not answer for user ${index}: ${result.error.message}`);
      return result.tier ? { id: result.tier.segmentId, name: result.tier.name, rank: result.tier.tierRank } : null;
    });
    const byId = new Map<string, TierView>();
    for (const segment of named) if (segment && segment.tierRank !== null) byId.set(segment.id, { id: segment.id, name: segment.name, rank: segment.tierRank });
    return { current, byId };
  }
}

/** A failed call as the agency answers it: the audience service's own refusal, or unavailable. */
function unavailable(error: unknown): Error {
  if (!isServiceError(error)) return error instanceof Error ? error : new Error(String(error));
  const remote = readGrpcError(error);
  return new UnavailableError('AUDIENCE_UNAVAILABLE', `the audience service could not answer (${remote.message}); nothing was changed, try again`, remote.retryAfterSeconds);
}
