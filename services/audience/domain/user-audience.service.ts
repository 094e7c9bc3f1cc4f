import { assertCanonicalIds } from '../../common/canonical-ids';
import { DomainError, InvalidArgumentError } from '../../common/errors';
import { normalizeIdentifier, type UserIdentifier } from '../../common/identifiers';
import type { EntryRepository, UserAudienceRecord, UserTierRecord } from '../repositories/entry.repository';

/** Lookups one call may carry. */
export const MAX_LOOKUPS = 1_000;

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
