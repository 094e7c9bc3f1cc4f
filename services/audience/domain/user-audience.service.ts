import { assertCanonicalIds } from '../../rules/canonical-ids';
import { DomainError, type FieldViolation, InvalidArgumentError, invalidFields, MAX_LISTED_VIOLATIONS } from '../../rules/errors';
import { checkIdentifier, normalizeIdentifier, type UserIdentifier } from '../../rules/identifiers';
import { isUuid } from '../../rules/ids';
import type { EntryRepository, MembershipAnswers, MembershipQuery, UserAudienceRecord, UserTierRecord } from '../repositories/entry.repository';

/** Lookups one call may carry. */
export const MAX_LOOKUPS = 1_000;

/** Membership questions one call may carry: a batch of 1,000 conversions asks about its users and their affiliates. */
export const MAX_MEMBERSHIP_QUERIES = 2_000;

/** A membership question as asked (the user not checked yet). */
export interface MembershipQueryInput {
  segmentId: string;
  identifier: string;
  identifierType: string;
}

export interface UserAudienceLookup {
  projectId: string;
  identifier: string;
  identifierType: string;
}

/** One lookup's answer: the user's audiences, or why this lookup (alone) could not be answered. */
export type UserAudienceOutcome = { audiences: UserAudienceRecord[] } | { error: DomainError };

/** One lookup's answer: the user's current tier (none: in no tier segment), or why this lookup could not be answered. */
export type UserTierOutcome = { tier: UserTierRecord | null } | { error: DomainError };

type ValidLookup = { index: number; projectId: string; user: UserIdentifier };

export class UserAudienceService {
  constructor(private readonly entries: EntryRepository) {}

  /**
   * The audiences each user belongs to in its project, with each audience's badge. An invalid
   * identifier, or an id not in canonical form (which the gRPC layer leaves to this loop), fails
   * its own lookup only, so one bad request never spoils the others of a batch.
   */
  async lookup(lookups: UserAudienceLookup[]): Promise<UserAudienceOutcome[]> {
    const { outcomes, valid } = checkLookups<UserAudienceOutcome>(lookups);
    const found = await this.entries.findUserAudiences(valid);
    valid.forEach((lookup, position) => {
      outcomes[lookup.index] = { audiences: found[position]! };
    });
    return outcomes;
  }

  /**
   * Each user's current tier in its project: the highest-ranked tier segment the user is in, with
   * entries of any kind (static or dynamic). Invalid lookups fail alone, as in `lookup`.
   */
  async tiers(lookups: UserAudienceLookup[]): Promise<UserTierOutcome[]> {
    const { outcomes, valid } = checkLookups<UserTierOutcome>(lookups);
    const found = await this.entries.findUserTiers(valid);
    valid.forEach((lookup, position) => {
      outcomes[lookup.index] = { tier: found[position] ?? null };
    });
    return outcomes;
  }

  /**
   * Whether each user is a member of each segment of the project (an entry of either kind, static
   * or dynamic), and which of the segments the project does not have (they have no members).
   * Unlike the lookups above, the questions come from one caller about one project (the claim
   * service paying a batch), so a malformed one refuses the call, naming it.
   */
  async memberships(projectId: string, queries: MembershipQueryInput[]): Promise<MembershipAnswers> {
    if (queries.length > MAX_MEMBERSHIP_QUERIES) {
      throw new InvalidArgumentError('TOO_MANY_QUERIES', `at most ${MAX_MEMBERSHIP_QUERIES} membership queries per call`, [
        { field: 'queries', reason: `has ${queries.length}; the limit is ${MAX_MEMBERSHIP_QUERIES}` },
      ]);
    }
    const violations: FieldViolation[] = [];
    if (!isUuid(projectId)) violations.push({ field: 'project_id', reason: 'must be the id of a project (a UUID)' });
    const checked: MembershipQuery[] = [];
    queries.forEach((query, index) => {
      if (violations.length >= MAX_LISTED_VIOLATIONS) return;
      if (!isUuid(query.segmentId)) violations.push({ field: `queries[${index}].segment_id`, reason: 'must be the id of an audience (a UUID)' });
      const user = checkIdentifier(query.identifier, query.identifierType, `queries[${index}].user`);
      violations.push(...user.violations);
      if (user.user) checked.push({ segmentId: query.segmentId, user: user.user });
    });
    if (violations.length > 0) throw invalidFields(violations.slice(0, MAX_LISTED_VIOLATIONS));
    return this.entries.findMemberships(projectId, checked);
  }
}

/** The lookups that can be asked, in canonical form; the others already answered with their error. */
function checkLookups<O extends UserAudienceOutcome | UserTierOutcome>(lookups: UserAudienceLookup[]): { outcomes: O[]; valid: ValidLookup[] } {
  if (lookups.length > MAX_LOOKUPS) {
    throw new InvalidArgumentError('TOO_MANY_LOOKUPS', `at most ${MAX_LOOKUPS} lookups per call`, [
      { field: 'lookups', reason: `has ${lookups.length}; the limit is ${MAX_LOOKUPS}` },
    ]);
  }
  const outcomes: O[] = new Array(lookups.length);
  const valid: ValidLookup[] = [];
  lookups.forEach((lookup, index) => {
    try {
      assertCanonicalIds({ projectId: lookup.projectId, user: { identifier: lookup.identifier, identifierType: lookup.identifierType } });
      valid.push({ index, projectId: lookup.projectId, user: normalizeIdentifier(lookup.identifier, lookup.identifierType) });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      outcomes[index] = { error } as O;
    }
  });
  return { outcomes, valid };
}
