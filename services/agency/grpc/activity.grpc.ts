import type { HistoryItem, ReferredUser } from '../../../gen/referral/agency/v1/activity';
import { ReferredUserSort } from '../../../gen/referral/agency/v1/enums';
import type { AgencyServiceServer } from '../../../gen/referral/agency/v1/agency';
import { optionalEnum, requireField } from '../../common/fields';
import type { UnaryHandlers } from '../../common/grpc/service';
import { pageInfo, toPage } from '../../common/pagination';
import type { AgencyDomain } from '../composition';
import type { HistoryEntry } from '../../common/affiliate-history';
import type { ReferredUserRecord } from '../repositories/referred-users.repository';

type ActivityHandlers = Pick<UnaryHandlers<AgencyServiceServer>, 'getAffiliateHistory' | 'listAffiliateReferrals'>;

/** The affiliate detail view's history and referred users: protobuf <-> domain, no rules (as agency.grpc.ts). */
export function activityHandlers(domain: AgencyDomain): ActivityHandlers {
  return {
    getAffiliateHistory: async (req) => {
      const page = toPage(req.page);
      const { records, total } = await domain.activity.historyOf(req.projectId, requireField(req.user, 'user'), page);
      return { results: records.map(toHistoryItem), pageInfo: pageInfo(page, total) };
    },

    listAffiliateReferrals: async (req) => {
      const page = toPage(req.page);
      const sort = optionalEnum(ReferredUserSort, req.sortBy, 'sort_by');
      const { records, total } = await domain.activity.referralsOf(req.projectId, requireField(req.user, 'user'), sort, page);
      return { results: records.map(toReferredUser), pageInfo: pageInfo(page, total) };
    },
  };
}

function toHistoryItem(entry: HistoryEntry): HistoryItem {
  return { type: entry.type, at: entry.at, dataJson: JSON.stringify(entry.data) };
}

function toReferredUser(record: ReferredUserRecord): ReferredUser {
  return {
    user: record.user,
    code: record.code,
    referredAt: record.referredAt,
    volumeUsd: record.volumeUsd,
    revenueUsd: record.revenueUsd,
    conversions: String(record.conversions),
  };
}
