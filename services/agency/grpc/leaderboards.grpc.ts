import type { AgencyServiceServer } from '../../../gen/referral/agency/v1/agency';
import { type AffiliateLeaderboardEntry, LeaderboardAudience, LeaderboardMetric } from '../../../gen/referral/agency/v1/leaderboards';
import type { UnaryHandlers } from '../../platform/grpc/service';
import { requireEnum } from '../../rules/fields';
import { pageInfo, toPage } from '../../rules/pagination';
import type { AgencyDomain } from '../composition';
import type { AffiliateLeaderboardRecord } from '../repositories/affiliate-leaderboard.repository';

type LeaderboardHandlers = Pick<UnaryHandlers<AgencyServiceServer>, 'getAffiliateLeaderboard' | 'getReferredVolumes'>;

/** The volume, revenue and referred-users boards, and referred volumes by user: protobuf <-> domain, no rules (as agency.grpc.ts). */
export function leaderboardHandlers(domain: AgencyDomain): LeaderboardHandlers {
  return {
    getAffiliateLeaderboard: async (req) => {
      const page = toPage(req.page);
      const board = await domain.leaderboards.page(
        req.projectId,
        {
          metric: requireEnum(LeaderboardMetric, req.metric, 'metric'),
          userType: requireEnum(LeaderboardAudience, req.audience, 'audience'),
          user: req.user,
        },
        page,
      );
      return { results: board.records.map(toEntry), pageInfo: pageInfo(page, board.total), calculatedAt: board.calculatedAt };
    },

    getReferredVolumes: async (req) => {
      const figures = await domain.leaderboards.referralFigures(req.projectId, req.users);
      return {
        results: figures.map(({ user, volumeUsd, referredUsers, code }) => ({
          user,
          volumeUsd,
          referredUsers: String(referredUsers),
          code: code ?? undefined,
        })),
      };
    },
  };
}

function toEntry(record: AffiliateLeaderboardRecord): AffiliateLeaderboardEntry {
  return {
    rank: String(record.rank),
    user: record.user,
    code: record.code ?? undefined,
    total: record.total,
    conversions: String(record.conversions),
  };
}
