import type { AffiliateLeaderboardEntry, GetAffiliateLeaderboardResponse } from '../../../gen/referral/agency/v1/leaderboards';
import { listBody } from '../../http/list';
import { count, required } from '../../http/present';
import { presentUser } from '../claim/claim.presenters';

/** A board's page with when it was read, each entry presented by `entry`. */
export function presentBoard<T>(board: GetAffiliateLeaderboardResponse, entry: (item: AffiliateLeaderboardEntry) => T) {
  return { ...listBody(board, entry), calculated_at: required(board.calculatedAt, 'calculated_at').toISOString() };
}

function rankedUser(item: AffiliateLeaderboardEntry) {
  const user = presentUser(item.user);
  return { rank: count(item.rank, 'rank'), address: user.user_identifier, ...user, affiliate_code: item.code ?? null };
}

export const presentVolumeEntry = (item: AffiliateLeaderboardEntry) => ({ ...rankedUser(item), total_amount: item.total, chain_id: null });

export const presentRevenueEntry = (item: AffiliateLeaderboardEntry) => ({
  ...rankedUser(item),
  total_amount: item.total,
  attributions: count(item.conversions, 'conversions'),
});

export function presentReferredUsersEntry(item: AffiliateLeaderboardEntry) {
  const user = presentUser(item.user);
  return { rank: count(item.rank, 'rank'), address: user.user_identifier, ...user, total_referred_users: count(item.total, 'total') };
}
