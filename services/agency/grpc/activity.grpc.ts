import type {
  AffiliateClicks,
  AffiliateFigures,
  AffiliateStats,
  AffiliateTotals,
  DailyFigures,
  HistoryItem,
  LevelFigures,
  ReferralTree,
  ReferredUser,
} from '../../../gen/referral/agency/v1/activity';
import { AffiliateStatus, ReferredUserSort, StatsPeriod } from '../../../gen/referral/agency/v1/enums';
import type { AgencyServiceServer } from '../../../gen/referral/agency/v1/agency';
import { optionalEnum, requireEnum, requireField } from '../../rules/fields';
import type { UnaryHandlers } from '../../platform/grpc/service';
import { pageInfo, toPage } from '../../rules/pagination';
import type { AgencyDomain } from '../composition';
import type { HistoryEntry } from '../../rules/affiliate-history';
import type { ReferredUserRecord } from '../repositories/referred-users.repository';
import type { AffiliateFiguresRecord, AffiliateStatsRecord } from '../domain/affiliate-activity.service';
import type { DailyFiguresRecord, LevelFiguresRecord } from '../repositories/affiliate-stats.repository';
import { toEarnedInCurrency } from './programs.mappers';

type ActivityHandlers = Pick<
  UnaryHandlers<AgencyServiceServer>,
  | 'getAffiliateHistory'
  | 'listAffiliateReferrals'
  | 'getAffiliateStats'
  | 'getAffiliateFigures'
  | 'getReferralTree'
  | 'getAffiliateTotals'
  | 'getAffiliateClicks'
>;

/** The affiliate detail view's history and referred users, and the portal's figures: protobuf <-> domain, no rules (as agency.grpc.ts). */
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

    getAffiliateStats: async (req) =>
      toAffiliateStats(
        await domain.activity.statsOf(req.projectId, requireField(req.user, 'user'), req.from, req.to, {
          bucket: optionalEnum(StatsPeriod, req.groupBy, 'group_by') ?? 'day',
          conversionName: req.conversionName,
        }),
      ),

    getAffiliateFigures: async (req) =>
      toAffiliateFigures(await domain.activity.figuresOf(req.projectId, requireField(req.user, 'user'), req.from, req.to, req.conversionName)),

    getReferralTree: async (req): Promise<ReferralTree> => {
      const tree = await domain.activity.treeOf(req.projectId, requireField(req.user, 'user'));
      return {
        affiliatesPerLevel: tree.perLevel.map(String),
        nodes: tree.nodes.map((node) => ({
          affiliateId: node.affiliateId,
          identifier: node.user.identifier,
          identifierType: node.user.identifierType,
          parentAffiliateId: node.parentId,
          level: node.level,
          volumeUsd: node.volumeUsd,
          revenueUsd: node.revenueUsd,
          convertingUsers: node.convertingUsers.toString(),
          endUsers: node.endUsers.toString(),
        })),
        truncated: tree.truncated,
      };
    },

    getAffiliateTotals: async (req): Promise<AffiliateTotals> => {
      const totals = await domain.activity.projectTotals(req.projectId, {
        statuses: req.statuses.map((status) => requireEnum(AffiliateStatus, status, 'statuses')),
        regions: req.regions,
        audienceIds: req.audienceIds,
      });
      return {
        affiliates: String(totals.affiliates),
        active: String(totals.active),
        suspended: String(totals.suspended),
        flagged: String(totals.flagged),
        regions: String(totals.regions),
        volumeUsd: totals.volumeUsd,
        revenueUsd: totals.revenueUsd,
        conversions: String(totals.conversions),
        endUsers: String(totals.endUsers),
        earnings: totals.earnings.map(toEarnedInCurrency),
      };
    },

    getAffiliateClicks: async (req): Promise<AffiliateClicks> => {
      const series = await domain.activity.clicksOf(req.projectId, requireField(req.user, 'user'), req.code, req.from, req.to);
      return { series: series.map((day) => ({ date: day.date, clicks: String(day.clicks) })) };
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

function toAffiliateStats({ totals, series }: AffiliateStatsRecord): AffiliateStats {
  return {
    volumeUsd: totals.volumeUsd,
    revenueUsd: totals.revenueUsd,
    conversions: String(totals.conversions),
    endUsers: String(totals.endUsers),
    convertingUsers: String(totals.convertingUsers),
    referredVolumeUsd: totals.referredVolumeUsd,
    earnings: totals.earnings.map(toEarnedInCurrency),
    agencyEarnings: totals.agencyEarnings.map(toEarnedInCurrency),
    series: series.map(toDailyFigures),
  };
}

function toDailyFigures(day: DailyFiguresRecord): DailyFigures {
  return {
    date: day.date,
    volumeUsd: day.volumeUsd,
    revenueUsd: day.revenueUsd,
    conversions: String(day.conversions),
    referredVolumeUsd: day.referredVolumeUsd,
    referredUsers: String(day.referredUsers),
    r2VolumeUsd: day.upperLevelVolumesUsd[0],
    r3VolumeUsd: day.upperLevelVolumesUsd[1],
    r4VolumeUsd: day.upperLevelVolumesUsd[2],
    earnings: day.earnings.map(toEarnedInCurrency),
    agencyEarnings: day.agencyEarnings.map(toEarnedInCurrency),
  };
}

function toAffiliateFigures(figures: AffiliateFiguresRecord): AffiliateFigures {
  return { levels: figures.levels.map(toLevelFigures), endUsers: String(figures.endUsers), newUsers: String(figures.newUsers) };
}

function toLevelFigures(level: LevelFiguresRecord): LevelFigures {
  return {
    level: level.level,
    volumeUsd: level.volumeUsd,
    revenueUsd: level.revenueUsd,
    conversions: String(level.conversions),
    convertingUsers: String(level.convertingUsers),
    paidVolumeUsd: level.paidVolumeUsd,
    paidRevenueUsd: level.paidRevenueUsd,
    paidConversions: String(level.paidConversions),
    earnings: level.earnings.map(toEarnedInCurrency),
  };
}
