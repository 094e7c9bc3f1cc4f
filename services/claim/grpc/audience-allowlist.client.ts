import { status as GrpcStatus } from '@grpc/grpc-js';
import type { AudienceServiceClient } from '../../../gen/referral/audience/v1/audience';
import { UnavailableError } from '../../rules/errors';
import type { GrpcClient } from '../../platform/grpc/client';
import { isServiceError, readGrpcError } from '../../platform/grpc/errors';
import type { AllowlistSource, MembershipQuestion } from '../domain/allowlists';

/** CheckMemberships takes at most this many questions a call (a batch of 1,000 conversions asks at most 2,000). */
const MAX_QUESTIONS_PER_CALL = 2_000;

type AudienceCalls = GrpcClient<AudienceServiceClient>['call'];

/**
 * The audience service as the allowlists' source of memberships (CheckMemberships: a batch's
 * questions are one query there, a primary-key probe each) and of which audiences exist
 * (GetSegment), over the client outbound-clients.ts builds: every call has the configured deadline.
 */
export class AudienceAllowlistClient implements AllowlistSource {
  constructor(private readonly audience: AudienceCalls) {}

  async members(projectId: string, questions: readonly MembershipQuestion[]): Promise<{ members: boolean[]; missing: string[] }> {
    const members: boolean[] = [];
    const missing = new Set<string>();
    for (let start = 0; start < questions.length; start += MAX_QUESTIONS_PER_CALL) {
      const slice = questions.slice(start, start + MAX_QUESTIONS_PER_CALL);
      // A failure (the audience service away, a deadline) is the job's to retry: the batch waits for its allowlists.
      const answer = await this.audience.checkMemberships({
        projectId,
        queries: slice.map((question) => ({ segmentId: question.audienceId, user: question.user })),
      });
      if (answer.members.length !== slice.length)
        throw new Error(`the audience service answered ${answer.members.length} of ${slice.length} membership questions`);
      members.push(...answer.members);
      for (const id of answer.missingSegmentIds) missing.add(id);
    }
    return { members, missing: [...missing] };
  }

  async missing(projectId: string, audienceIds: readonly string[]): Promise<string[]> {
    const found = await Promise.all(audienceIds.map((segmentId) => this.exists(projectId, segmentId)));
    return audienceIds.filter((_, index) => !found[index]);
  }

  private async exists(projectId: string, segmentId: string): Promise<boolean> {
    try {
      await this.audience.getSegment({ projectId, segmentId });
      return true;
    } catch (error) {
      if (isServiceError(error) && error.code === GrpcStatus.NOT_FOUND) return false;
      const remote = isServiceError(error) ? readGrpcError(error) : undefined;
      throw new UnavailableError(
        'AUDIENCE_SERVICE_UNAVAILABLE',
        'the audience service did not answer, and allowlist audiences are checked there: the terms were not saved; retry shortly',
        remote?.retryAfterSeconds,
      );
    }
  }
}
