import type { Clock } from '../../common/clock';
import type { UserIdentifier } from '../../common/identifiers';
import type { Page } from '../../common/pagination';
import type { AffiliateHistoryRepository } from '../repositories/affiliate-history.repository';
import type { ReferredUserRecord, ReferredUsersRepository } from '../repositories/referred-users.repository';
import { affiliateNotFound, subject, type UserInput } from './affiliate-fields';
import type { HistoryEntry, HistoryType } from '../../common/affiliate-history';
import type { ReferredUserSort } from './vocabulary';

/**
 * What an affiliate's detail view reads beyond the affiliate itself (§2.9): its activity history
 * and the users it referred with their figures. Each answers a user that is no affiliate of the
 * project with AFFILIATE_NOT_FOUND.
 */
export class AffiliateActivityService {
  constructor(
    private readonly history: AffiliateHistoryRepository,
    private readonly referred: ReferredUsersRepository,
    private readonly clock: Clock,
  ) {}

  /** Newest first, paged. */
  async historyOf(projectIdInput: string, userInput: UserInput, page: Page): Promise<{ records: HistoryEntry[]; total: number }> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const affiliateId = await this.idOf(projectId, user);
    const { rows, total } = await this.history.page({ affiliateId, projectId, user }, this.clock.now(), page);
    return { records: rows.map((row) => ({ ...row, type: row.type as HistoryType })), total };
  }

  async referralsOf(
    projectIdInput: string,
    userInput: UserInput,
    sort: ReferredUserSort | undefined,
    page: Page,
  ): Promise<{ records: ReferredUserRecord[]; total: number }> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const affiliateId = await this.idOf(projectId, user);
    return this.referred.list(affiliateId, sort ?? 'referred_at', page);
  }

  private async idOf(projectId: string, user: UserIdentifier): Promise<string> {
    const id = await this.history.affiliateId(projectId, user);
    if (id === undefined) throw affiliateNotFound();
    return id;
  }
}
