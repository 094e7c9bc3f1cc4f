import { type AffiliateLeaderboardEntry, LeaderboardAudience, LeaderboardMetric } from '../../../gen/referral/agency/v1/leaderboards';
import { canonicalSpellingOfAnyType } from '../../../services/rules/identifiers';
import { enumValue } from '../../../services/rules/enums';
import { FreshReads } from '../../../services/platform/shared-reads';
import { pageRequest } from '../../http/list';
import { type AnyRoute, defineRoute, sharedBody } from '../../http/route';
import { identifierType, leaderboardUser } from '../claim/leaderboard-user';
import { anyProjectKey } from '../route-access';
import type { RouteDeps } from '../route-deps';
import { presentBoard, presentReferredUsersEntry, presentRevenueEntry, presentVolumeEntry } from './leaderboards.presenters';
import {
  metricBoardQuery,
  referredUsersBoardSchema,
  referredUsersQuery,
  referredVolumeQuery,
  referredVolumeSchema,
  revenueBoardSchema,
  volumeBoardSchema,
} from './leaderboards.schemas';

const tags = ['Leaderboards'];

const BOARD_RULES =
  'All time, from the agency’s metrics projection (kept with every conversion, never a scan of conversions); only figures above ' +
  'zero are on a board. user_type=affiliate ranks affiliates by what the users they referred brought (ties by affiliate id, the ' +
  'newest first); user_type=end_user ranks users by what their own attributed conversions brought (ties by identifier). With ' +
  '`user_identifier` (or the SDK’s `user_address`), only that user’s entry with its rank; `calculated_at` says when it was read. ' +
  'Always current: identical page requests that arrive while one is being read share the next read, begun after each of them arrived.';

type BoardBody<T> = ReturnType<typeof presentBoard<T>>;
type ReferredVolumesBody = { project_id: string; referred_volumes: Array<{ user_identifier: string; referred_volume: number }>; total_count: number };

/** The volume, revenue and referred-users leaderboards and referred volumes by user, as the Fuul SDK calls them (any project key). */
export function leaderboardRoutes({ clients, sharedReads }: RouteDeps): AnyRoute[] {
  // Identical page requests (and identical referred-volume requests) that overlap share one read, each read begun
  // after every request it answers arrived (as the claim-check list): under load, a popular page of a board costs one
  // gRPC call and one statement per batch of readers, and its JSON is encoded once for all of them.
  const pages = new FreshReads<BoardBody<unknown>>(sharedReads('affiliate_leaderboard_page'));
  const referredVolumes = new FreshReads<ReferredVolumesBody>(sharedReads('referred_volumes'));
  type BoardQuery = {
    user_identifier?: string;
    user_address?: string;
    identifier_type?: string;
    user_identifier_type?: string;
    page: number;
    page_size: number;
  };
  const read = (projectId: string, metric: 'volume' | 'revenue' | 'referred_users', audience: 'affiliate' | 'end_user', query: BoardQuery) => {
    const identifier = leaderboardUser(query);
    return clients.agency.getAffiliateLeaderboard({
      projectId,
      metric: enumValue(LeaderboardMetric, metric),
      audience: enumValue(LeaderboardAudience, audience),
      user: identifier === undefined ? undefined : { identifier, identifierType: identifierType(query) },
      page: pageRequest(query),
    });
  };
  /** A board's answer: a user's own entry read for its request alone, a page shared by the identical requests that overlap. */
  const board = async <T>(
    projectId: string,
    metric: 'volume' | 'revenue' | 'referred_users',
    audience: 'affiliate' | 'end_user',
    query: BoardQuery,
    entry: (item: AffiliateLeaderboardEntry) => T,
  ): Promise<BoardBody<T>> => {
    if (leaderboardUser(query) !== undefined) return presentBoard(await read(projectId, metric, audience, query), entry);
    const key = JSON.stringify([projectId, metric, audience, query.page, query.page_size]);
    // The key names the board, so every answer shared under it was presented by this `entry`.
    return pages.read(key, async () => sharedBody(presentBoard(await read(projectId, metric, audience, query), entry))) as Promise<BoardBody<T>>;
  };
  return [
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/payouts/leaderboard/volume',
        operationId: 'getVolumeLeaderboard',
        summary: 'Users ranked by USD volume',
        description: `${BOARD_RULES} \`total_amount\` is USD as a decimal string; \`chain_id\` is null. \`currency_address\` is accepted and not used.`,
        tags,
        auth: anyProjectKey,
        query: metricBoardQuery,
        responses: { 200: { description: 'A page of the board', schema: volumeBoardSchema } },
      },
      async ({ query, caller }) => ({
        status: 200,
        body: await board(caller.projectId, 'volume', query.user_type, query, presentVolumeEntry),
      }),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/payouts/leaderboard/revenue',
        operationId: 'getRevenueLeaderboard',
        summary: 'Users ranked by USD revenue',
        description: `${BOARD_RULES} \`total_amount\` is USD as a decimal string, \`attributions\` the conversions behind it. \`currency_address\` and \`fields\` are accepted and not used.`,
        tags,
        auth: anyProjectKey,
        query: metricBoardQuery,
        responses: { 200: { description: 'A page of the board', schema: revenueBoardSchema } },
      },
      async ({ query, caller }) => ({
        status: 200,
        body: await board(caller.projectId, 'revenue', query.user_type, query, presentRevenueEntry),
      }),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/leaderboard/referred',
        operationId: 'getReferredUsersLeaderboard',
        summary: 'Affiliates ranked by the users they referred',
        description: `${BOARD_RULES} Affiliates only; \`total_referred_users\` counts the users it referred, converted or not.`,
        tags,
        auth: anyProjectKey,
        query: referredUsersQuery,
        responses: { 200: { description: 'A page of the board', schema: referredUsersBoardSchema } },
      },
      async ({ query, caller }) => ({
        status: 200,
        body: await board(caller.projectId, 'referred_users', 'affiliate', query, presentReferredUsersEntry),
      }),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/payouts/leaderboard/referred-volume',
        operationId: 'getReferredVolume',
        summary: 'The referred volume of each of a few users',
        description:
          'For each user named (1 to 100, separated by commas, all of `identifier_type`), the USD volume of the users it referred, ' +
          'all time, from the metrics projection: 0 when it is no affiliate. In the order named; `no_cache` is accepted (every answer ' +
          'is read when asked: identical requests that arrive while one is being read share the next read, begun after each of them arrived). ' +
          '`referred_volume` is a JSON number, as the Fuul SDK types it.',
        tags,
        auth: anyProjectKey,
        query: referredVolumeQuery,
        responses: { 200: { description: 'The users’ referred volumes', schema: referredVolumeSchema } },
      },
      async ({ query, caller }) => {
        const type = query.identifier_type ?? 'evm_address';
        const key = JSON.stringify([caller.projectId, type, query.user_identifiers]);
        const body = await referredVolumes.read(key, async () => {
          const { results } = await clients.agency.getReferredVolumes({
            projectId: caller.projectId,
            users: query.user_identifiers.map((identifier) => ({ identifier: canonicalSpellingOfAnyType(identifier), identifierType: type })),
          });
          return sharedBody({
            project_id: caller.projectId,
            referred_volumes: results.map((item, index) => ({
              user_identifier: query.user_identifiers[index]!,
              referred_volume: Number(item.volumeUsd),
            })),
            total_count: results.length,
          });
        });
        return { status: 200, body };
      },
    ),
  ];
}
