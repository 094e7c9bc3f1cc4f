import type { UserIdentifier } from '../../rules/identifiers';

/** One membership question of a batch: is this user a member of this allowlist audience? */
export interface MembershipQuestion {
  audienceId: string;
  user: UserIdentifier;
}

/**
 * The audience service, which owns audiences and their entries, as payout terms' allowlists need
 * it (implemented over its gRPC API in ../grpc/audience-allowlist.client.ts).
 */
export interface AllowlistSource {
  /**
   * One answer per question, in order: whether the user is a member (a static or dynamic entry) of
   * the audience now; an audience the project no longer has has no members (`missing` lists it).
   * Throws when the audience service cannot answer: the batch is then paid later (the job retries),
   * never without its allowlists.
   */
  members(projectId: string, questions: readonly MembershipQuestion[]): Promise<{ members: boolean[]; missing: string[] }>;
  /** Of these audience ids, the ones the project does not have. Throws an UnavailableError when the audience service cannot answer. */
  missing(projectId: string, audienceIds: readonly string[]): Promise<string[]>;
}
