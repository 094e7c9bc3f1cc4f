import type { Clock } from '../../platform/clock';
import { invalidFields } from '../../rules/errors';
import { normalizeIdentifier } from '../../rules/identifiers';
import type { Page } from '../../rules/pagination';
import { requireProjectId, type UserInput } from '../../rules/subject';
import type {
  AffiliateLeaderboardRecord,
  AffiliateLeaderboardRepository,
  LeaderboardMetric,
  ReferralFiguresRecord,
} from '../repositories/affiliate-leaderboard.repository';

interface AffiliateLeaderboardQuery {
  metric: LeaderboardMetric;
  /** affiliate: affiliates by what the users they referred brought; end_user: users by what their own conversions brought. */
  userType: 'affiliate' | 'end_user';
  /** Only this user's entry, with its rank. */
  user: UserInput | undefined;
}

/** At most this many users per read of referral figures (the SDK sends them in one query string; a board's page has at most 100). */
const MAX_REFERRAL_FIGURES_USERS = 100;

/**
 * The all-time volume, revenue and referred-users boards (issue 25 §3), from the metrics projection
 * (docs/affiliates.md#leaderboards). Each answer says when it was read.
 */
export class LeaderboardService {
  constructor(
    private readonly boards: AffiliateLeaderboardRepository,
    private readonly clock: Clock,
  ) {}

  async page(
    projectIdInput: string,
    query: AffiliateLeaderboardQuery,
    page: Page,
  ): Promise<{ records: AffiliateLeaderboardRecord[]; total: number; calculatedAt: Date }> {
    const projectId = requireProjectId(projectIdInput);
    const metric = query.metric;
    if (query.userType === 'end_user' && metric === 'referred_users') {
      throw invalidFields([{ field: 'user_type', reason: 'the referred-users board ranks affiliates only' }]);
    }
    const calculatedAt = this.clock.now();
    if (query.user) {
      const user = normalizeIdentifier(query.user.identifier, query.user.identifierType, 'user');
      const entry =
        query.userType === 'affiliate' || metric === 'referred_users'
          ? await this.boards.affiliateEntry(projectId, metric, user)
          : await this.boards.endUserEntry(projectId, metric, user);
      return { records: entry ? [entry] : [], total: entry ? 1 : 0, calculatedAt };
    }
    const read =
      query.userType === 'affiliate' || metric === 'referred_users'
        ? await this.boards.affiliatesPage(projectId, metric, page)
        : await this.boards.endUsersPage(projectId, metric, page);
    return { ...read, calculatedAt };
  }

  /**
   * Each named user's referral figures in the order named: what the users it referred brought (USD),
   * how many it referred and its oldest code; zeros and no code for one that is no affiliate.
   */
  async referralFigures(projectIdInput: string, users: UserInput[]): Promise<Array<{ user: UserInput } & ReferralFiguresRecord>> {
    const projectId = requireProjectId(projectIdInput);
    if (users.length === 0) throw invalidFields([{ field: 'users', reason: 'must name at least one user' }]);
    if (users.length > MAX_REFERRAL_FIGURES_USERS) {
      throw invalidFields([{ field: 'users', reason: `must name at most ${MAX_REFERRAL_FIGURES_USERS} users` }]);
    }
    const canonical = users.map((user, index) => normalizeIdentifier(user.identifier, user.identifierType, `users[${index}]`));
    const figures = await this.boards.referralFigures(projectId, canonical);
    return users.map((user, index) => ({
      user,
      ...(figures.get(`${canonical[index]!.identifierType}|${canonical[index]!.identifier}`) ?? { volumeUsd: '0', referredUsers: 0n, code: null }),
    }));
  }
}
