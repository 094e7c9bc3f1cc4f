import { randomUUID } from 'node:crypto';
import type { AllowlistSource, MembershipQuestion } from '../../../services/claim/domain/allowlists';
import { userKey } from './timeline';

type User = { identifier: string; identifierType: string };

/** One call the claim domain made for allowlists, with how many questions or ids it asked. */
export interface AllowlistCall {
  method: 'members' | 'missing';
  asked: number;
}

/**
 * The audience service as payout terms' allowlists ask it (AllowlistSource), in memory: audiences
 * of a project and their members, as they are now, and every call written down (the tests of how
 * often a batch asks read `calls`). Static and dynamic entries are both members there; that rule,
 * and CheckMemberships itself, are tested in test/medium/audience/memberships.test.ts.
 */
export class FakeAudiences implements AllowlistSource {
  readonly calls: AllowlistCall[] = [];
  /** Audience id -> its project and its members' keys. */
  private readonly audiences = new Map<string, { projectId: string; members: Set<string> }>();

  create(projectId: string): { id: string } {
    const id = randomUUID();
    this.audiences.set(id, { projectId, members: new Set() });
    return { id };
  }

  add(projectId: string, audienceId: string, user: User): void {
    this.audience(projectId, audienceId).members.add(userKey(projectId, user));
  }

  remove(projectId: string, audienceId: string, user: User): void {
    this.audience(projectId, audienceId).members.delete(userKey(projectId, user));
  }

  delete(projectId: string, audienceId: string): void {
    this.audience(projectId, audienceId);
    this.audiences.delete(audienceId);
  }

  async members(projectId: string, questions: readonly MembershipQuestion[]): Promise<{ members: boolean[]; missing: string[] }> {
    this.calls.push({ method: 'members', asked: questions.length });
    const missing = new Set<string>();
    const members = questions.map(({ audienceId, user }) => {
      const audience = this.audiences.get(audienceId);
      if (audience?.projectId !== projectId) {
        missing.add(audienceId);
        return false;
      }
      return audience.members.has(userKey(projectId, user));
    });
    return { members, missing: [...missing] };
  }

  async missing(projectId: string, audienceIds: readonly string[]): Promise<string[]> {
    this.calls.push({ method: 'missing', asked: audienceIds.length });
    return audienceIds.filter((id) => this.audiences.get(id)?.projectId !== projectId);
  }

  private audience(projectId: string, audienceId: string) {
    const audience = this.audiences.get(audienceId);
    if (audience?.projectId !== projectId) throw new Error(`no audience ${audienceId} of project ${projectId} in the fake audience service`);
    return audience;
  }
}
