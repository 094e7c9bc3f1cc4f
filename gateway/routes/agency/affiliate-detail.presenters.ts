import type {
  AffiliateClicks,
  AffiliateFigures,
  AffiliateStats,
  DailyFigures,
  HistoryItem,
  LevelFigures,
  ReferralTree,
  ReferredUser,
} from '../../../gen/referral/agency/v1/activity';
import type { UserAudience } from '../../../gen/referral/audience/v1/audience';
import { HISTORY_TYPES, type HistoryType } from '../../../services/rules/affiliate-history';
import { count, required } from '../../http/present';
import { presentEarning } from './agency.presenters';

/** gRPC messages -> the JSON of affiliate-detail.schemas.ts. */
export function presentAudiences(audiences: readonly UserAudience[]) {
  return {
    audiences: audiences.map((audience) => ({ id: audience.id, name: audience.name })),
    badges: audiences.flatMap((audience) =>
      audience.badgeName === undefined
        ? []
        : [
            {
              audience_id: audience.id,
              name: audience.badgeName,
              description: audience.badgeDescription ?? null,
              image: audience.badgeImage ?? null,
            },
          ],
    ),
  };
}

const isHistoryType = (type: string): type is HistoryType => Object.hasOwn(HISTORY_TYPES, type);

export function presentHistoryItem(item: HistoryItem) {
  if (!isHistoryType(item.type)) throw new Error(`the service's reply has an unknown history type ${item.type}`);
  return { type: item.type, at: required(item.at, 'at').toISOString(), data: JSON.parse(item.dataJson) as Record<string, unknown> };
}

export function presentReferredUser(referred: ReferredUser) {
  const user = required(referred.user, 'user');
  return {
    identifier: user.identifier,
    identifier_type: user.identifierType,
    code: referred.code,
    referred_at: required(referred.referredAt, 'referred_at').toISOString(),
    volume_usd: referred.volumeUsd,
    revenue_usd: referred.revenueUsd,
    conversions: count(referred.conversions, 'conversions'),
  };
}

export function presentAffiliateStats(stats: AffiliateStats) {
  return {
    volume_usd: stats.volumeUsd,
    revenue_usd: stats.revenueUsd,
    conversions: count(stats.conversions, 'conversions'),
    end_users: count(stats.endUsers, 'end_users'),
    converting_users: count(stats.convertingUsers, 'converting_users'),
    referred_volume_usd: stats.referredVolumeUsd,
    earnings: stats.earnings.map(presentEarning),
    agency_earnings: stats.agencyEarnings.map(presentEarning),
    series: stats.series.map(presentDailyFigures),
  };
}

function presentDailyFigures(day: DailyFigures) {
  return {
    date: day.date,
    volume_usd: day.volumeUsd,
    revenue_usd: day.revenueUsd,
    conversions: count(day.conversions, 'series.conversions'),
    referred_volume_usd: day.referredVolumeUsd,
    earnings: day.earnings.map(presentEarning),
    agency_earnings: day.agencyEarnings.map(presentEarning),
  };
}

export function presentAffiliateClicks(clicks: AffiliateClicks) {
  return { series: clicks.series.map((day) => ({ date: day.date, clicks: count(day.clicks, 'clicks') })) };
}

/** One referral level's figures (GetAffiliateFigures). */
export function presentLevelFigures(level: LevelFigures) {
  return {
    level: level.level,
    volume_usd: level.volumeUsd,
    revenue_usd: level.revenueUsd,
    conversions: count(level.conversions, 'conversions'),
    earnings: level.earnings.map(presentEarning),
  };
}

/** The detail's referral tree: its figures per level (GetAffiliateFigures, all time) beside its downline (GetReferralTree). */
export function presentReferralLevels(figures: AffiliateFigures, tree: ReferralTree) {
  return {
    levels: figures.levels.map((level, index) => ({
      ...presentLevelFigures(level),
      affiliates: count(tree.affiliatesPerLevel[index] ?? '0', 'affiliates_per_level'),
    })),
    nodes: tree.nodes.map((node) => ({
      affiliate_id: node.affiliateId,
      identifier: node.identifier,
      identifier_type: node.identifierType,
      parent_affiliate_id: node.parentAffiliateId,
      level: node.level,
      volume_usd: node.volumeUsd,
      revenue_usd: node.revenueUsd,
      converting_users: count(node.convertingUsers, 'converting_users'),
      end_users: count(node.endUsers, 'end_users'),
    })),
    truncated: tree.truncated,
  };
}
