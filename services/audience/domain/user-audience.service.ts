import { normalizeIdentifier } from '../../common/identifiers';
import type { EntryRepository, UserAudienceRecord } from '../repositories/entry.repository';

export class UserAudienceService {
  constructor(private readonly entries: EntryRepository) {}

  /** The audiences one user belongs to in a project, with each audience's badge. */
  lookup(projectId: string, identifier: string, identifierType: string): Promise<UserAudienceRecord[]> {
    const user = normalizeIdentifier(identifier, identifierType, '');
    return this.entries.findUserAudiences(projectId, user);
  }
}
