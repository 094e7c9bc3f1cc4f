import { status as GrpcStatus } from '@grpc/grpc-js';
import type { AudienceServiceClient } from '../../../gen/referral/audience/v1/audience';
import { SegmentType } from '../../../gen/referral/audience/v1/enums';
import { Batcher } from '../../common/batcher';
import { UnavailableError } from '../../common/errors';
import type { GrpcClient } from '../../common/grpc/client';
import { isServiceError, readGrpcError } from '../../common/grpc/errors';
import type { UserIdentifier } from '../../common/identifiers';
import type { AudienceDirectory, SegmentSummary, TierLookup, TierView } from '../domain/audience-directory';

type AudienceCalls = GrpcClient<AudienceServiceClient>['call'];

interface TierKey {
  projectId: string;
  user: UserIdentifier;
}

/** Lookups per GetUserTiers call (the service's limit) and calls under way at once. */
const TIER_BATCHING = { maxBatchSize: 1_000, maxInFlight: 4 };

/**
 * The agency's view of the audience service, over its generated gRPC client (every call has a
 * deadline). NOT_FOUND is an answer (no such segment); a service that cannot answer is an
 * UnavailableError that names what happened to the request, so callers fail cleanly and retry.
 */
export class GrpcAudienceDirectory implements AudienceDirectory {
  /** Tier lookups of concurrent calls (attribution batches, affiliate pages) share GetUserTiers calls. */
  private readonly tierLoader: Batcher<TierKey, TierView | null>;

  constructor(private readonly audience: AudienceCalls) {
    this.tierLoader = new Batcher((keys) => this.loadTiers(keys), TIER_BATCHING);
  }

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
   * The users' current tiers (their lookups coalesced with those of concurrent calls into
   * GetUserTiers calls) and the named tiers (protected ones: a handful at most) read beside them.
   */
  async tiers(projectId: string, users: readonly UserIdentifier[], tierIds: readonly string[]): Promise<TierLookup> {
    const [current, named] = await Promise.all([
      Promise.all(users.map((user) => this.tierLoader.load({ projectId, user }))),
      Promise.all(tierIds.map((id) => this.segment(projectId, id))),
    ]);
    const byId = new Map<string, TierView>();
    for (const segment of named) if (segment && segment.tierRank !== null) byId.set(segment.id, { id: segment.id, name: segment.name, rank: segment.tierRank });
    return { current, byId };
  }

  /**
   * One GetUserTiers call for a batch of lookups, each distinct user asked once. A lookup the
   * audience service refuses alone (it never should: the agency sends canonical users) fails its
   * caller rather than read as "no tier".
   */
  private async loadTiers(keys: TierKey[]): Promise<Array<TierView | null | Error>> {
    const keyOf = (key: TierKey) => `${key.projectId}|${key.user.identifierType}|${key.user.identifier}`;
    const distinct = [...new Map(keys.map((key) => [keyOf(key), key])).values()];
    const answer = await this.audience.getUserTiers({ lookups: distinct.map(({ projectId, user }) => ({ projectId, user })) }).catch((error: unknown) => {
      throw unavailable(error);
    });
    const byKey = new Map<string, TierView | null | Error>();
    distinct.forEach((key, index) => {
      const result = answer.results[index];
      byKey.set(
        keyOf(key),
        !result || result.error
          ? new UnavailableError('AUDIENCE_UNAVAILABLE', `the audience service could not answer for a user: ${result?.error?.message ?? 'no result'}`)
          : result.tier
            ? { id: result.tier.segmentId, name: result.tier.name, rank: result.tier.tierRank }
            : null,
      );
    });
    return keys.map((key) => byKey.get(keyOf(key))!);
  }
}

/** A failed call as the agency answers it: the audience service's own refusal, or unavailable. */
function unavailable(error: unknown): Error {
  if (!isServiceError(error)) return error instanceof Error ? error : new Error(String(error));
  const remote = readGrpcError(error);
  return new UnavailableError('AUDIENCE_UNAVAILABLE', `the audience service could not answer (${remote.message}); nothing was changed, try again`, remote.retryAfterSeconds);
}
