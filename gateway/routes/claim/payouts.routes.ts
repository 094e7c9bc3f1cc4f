import type { GetPayoutsLeaderboardResponse } from '../../../gen/referral/claim/v1/claim';
import { CurrencyFamily, LeaderboardUserType, MovementStatus } from '../../../gen/referral/claim/v1/enums';
import { enumValue, optionalEnumValue } from '../../../services/rules/enums';
import { type Snapshot, SnapshotReads } from '../../../services/platform/shared-reads';
import { HttpError } from '../../http/errors';
import { listBody, pageRequest } from '../../http/list';
import { count, required } from '../../http/present';
import { type AnyRoute, defineRoute, sharedBody } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { familyOf } from './currency-family';
import { presentLeaderboardEntry, presentMovement } from './claim.presenters';
import { leaderboardQuery, leaderboardSchema, movementListSchema, movementsQuery, pointsLeaderboardQuery } from './claim.schemas';
import { anyProjectKey } from '../route-access';
import { actingFor, PROJECT_NOT_FOUND, userOfQuery, userReader } from './acting-for';
import { timeWindow } from './date-window';
import { identifierType, leaderboardUser, optionalIdentifierType } from './leaderboard-user';

const tags = ['Payouts'];

type LeaderboardBody = ReturnType<typeof leaderboardBody>;

/**
 * Pages kept at most (each with its JSON, a few KB to a few tens of KB): expired ones go first
 * when it is full. Popular pages are few; a deep page read once is not worth much memory.
 */
const KEPT_PAGES = 1_000;

/**
 * Who reads the payouts board: any project key, the user each names (or the whole board); or a wallet
 * session, in the project named by `project_id`, for its own entry only (the affiliate portal's
 * rank beside its earnings). A rule of this route alone, as userReader is of the user's own routes.
 */
const boardReader = { kind: 'user_or_session', roles: ['service_role', 'admin', 'read_only'], project: 'key' } as const;

function leaderboardBody(board: GetPayoutsLeaderboardResponse) {
  return { ...listBody(board, presentLeaderboardEntry(board.decimals)), calculated_at: required(board.calculatedAt, 'calculated_at').toISOString() };
}

type LeaderboardEntryBody = LeaderboardBody['results'][number];

/**
 * The SDK's extra fields of the entries (`fields`): affiliate_code, referred_volume and referred_users from the
 * agency's figures of the page's users (one call per page); tiers is accepted and not filled.
 */
async function withReferralFields(
  clients: RouteDeps['clients'],
  projectId: string,
  entries: LeaderboardEntryBody[],
  fields: string[],
): Promise<LeaderboardEntryBody[]> {
  const wanted = new Set(fields);
  if (entries.length === 0 || !['affiliate_code', 'referred_volume', 'referred_users'].some((field) => wanted.has(field))) return entries;
  const { results } = await clients.agency.getReferredVolumes({
    projectId,
    users: entries.map((entry) => ({ identifier: entry.user_identifier, identifierType: entry.user_identifier_type })),
  });
  return entries.map((entry, index) => {
    const figures = results[index];
    return {
      ...entry,
      ...(wanted.has('affiliate_code') && figures?.code !== undefined ? { affiliate_code: figures.code } : {}),
      ...(wanted.has('referred_volume') ? { referred_volume: Number(figures?.volumeUsd ?? '0') } : {}),
      ...(wanted.has('referred_users') ? { referred_users: count(figures?.referredUsers ?? '0', 'referred_users') } : {}),
    };
  });
}

/** conversion_external_ids (either form the SDK sends): refused, as no conversion has an external id here yet. */
function refuseConversionIds(query: { conversion_external_ids?: string | undefined; 'conversion_external_ids[]'?: string | undefined }): void {
  if (query.conversion_external_ids === undefined && query['conversion_external_ids[]'] === undefined) return;
  throw new HttpError(400, 'VALIDATION_FAILED', 'conversion_external_ids: conversions have no external ids here yet; leave it out', [
    { field: 'conversion_external_ids', reason: 'not supported: conversions have no external ids here yet' },
  ]);
}

/**
 * A page as the claim service answers it, kept here as long as the service says it stays valid
 * (fresh_until: CLAIM_LEADERBOARD_CACHE_MS after calculated_at) and never longer than that from
 * when it was asked here, whatever the two clocks say. The answer is presented once and shared.
 */
async function leaderboardSnapshot(read: () => Promise<GetPayoutsLeaderboardResponse>, now: () => number): Promise<Snapshot<LeaderboardBody>> {
  const asked = now();
  const board = await read();
  const calculatedAt = required(board.calculatedAt, 'calculated_at').getTime();
  const freshUntil = board.freshUntil?.getTime() ?? calculatedAt;
  return { value: sharedBody(leaderboardBody(board)), keepUntil: Math.min(freshUntil, asked + (freshUntil - calculatedAt)) };
}

/** The ledger as users and leaderboards see it (service_role and read_only keys, the project the key's; a user's movements and own board entry also its wallet session). */
export function payoutRoutes({ clients, clock, sharedReads }: RouteDeps): AnyRoute[] {
  const now = () => clock.now().getTime();
  // Readers of one page of one board share its read and its snapshot (the leaderboard's stated freshness).
  const boards = new SnapshotReads<LeaderboardBody>(now, sharedReads('leaderboard_page'), KEPT_PAGES);
  /**
   * A board's answer (payouts and points boards alike): a user's own entry is read every time (the service never keeps
   * it either), and so is a page with extra fields; any other page is the shared snapshot of `board` (which board it is)
   * at that user type, range and page.
   */
  const answer = async (
    read: () => Promise<GetPayoutsLeaderboardResponse>,
    projectId: string,
    ownEntry: boolean,
    query: { user_type: string; from?: string | undefined; to?: string | undefined; page: number; page_size: number; fields: string[] },
    board: Array<string | number | null>,
  ): Promise<LeaderboardBody> => {
    if (ownEntry || query.fields.length > 0) {
      const body = leaderboardBody(await read());
      return { ...body, results: await withReferralFields(clients, projectId, body.results, query.fields) };
    }
    const key = JSON.stringify([...board, query.user_type, query.from ?? null, query.to ?? null, query.page, query.page_size]);
    return boards.read(key, () => leaderboardSnapshot(read, now));
  };
  return [
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/payouts/movements',
        operationId: 'listPayoutMovements',
        summary: 'A user’s payout movements, newest first',
        description:
          'Every movement that pays the user: as the converting user (end_user_payout), as referrer (affiliate_payout) or as master ' +
          'affiliate (agency_payout), each with its `status` (pending with its `pending_reason`, available or declined) and ' +
          '`available_at`, and what the payout terms’ caps cut from it (`capped_amount`, `capped_by`; null when uncapped: ' +
          '`total_amount` is what is paid, "0" when a cap cut it all); `status` lists only the movements in one status (the portal reads its pending ones); `from_date` and `to_date` (the Fuul ' +
          'SDK’s getUserPayoutMovements: each a UTC day, YYYY-MM-DD, `to_date` inclusive, or an ISO-8601 instant; either may be left out) ' +
          'only those written within them, 400 VALIDATION_FAILED when `to_date` is before `from_date`. Acting for a user: a service_role or read_only key names the user (`user_identifier`, as the Fuul SDK ' +
          'sends it; 400 without it); a wallet session token reads its own wallet’s movements in the project named by the ' +
          '`project_id` query parameter (the affiliate portal’s pending amounts and their dates), and naming another user is 403. ' +
          'The SDK’s request and answer are unchanged: the session is one more caller of the same path, as on the claim-check routes.',
        tags,
        auth: userReader,
        query: movementsQuery,
        responses: {
          200: { description: 'A page of movements', schema: movementListSchema },
          404: PROJECT_NOT_FOUND,
        },
      },
      async ({ query, caller }) => {
        const { projectId, user } = actingFor(caller, userOfQuery(query));
        const status = optionalEnumValue(MovementStatus, query.status) ?? MovementStatus.UNSPECIFIED;
        const window = timeWindow({ field: 'from_date', value: query.from_date }, { field: 'to_date', value: query.to_date });
        const family = query.type === undefined ? CurrencyFamily.UNSPECIFIED : familyOf(query.type);
        const page = await clients.claim.listMovements({ projectId, user, status, family, page: pageRequest(query), ...window });
        return { status: 200, body: listBody(page, presentMovement(projectId)) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/payouts/leaderboard/payouts',
        operationId: 'getPayoutsLeaderboard',
        summary: 'Users ranked by what they earned in one currency',
        description:
          'Only affiliate_payout (user_type=affiliate) or end_user_payout (user_type=end_user) movements count; agency_payout never does. ' +
          'Totals are kept with every movement (no scan). Ties in total are ranked by identifier. `total_amount` is a JSON number of ' +
          'whole currency units, as the Fuul SDK types it (the nearest double); `total_amount_base_units` is the exact total. ' +
          '`from`/`to` (UTC days, both included, either may be left out) rank what was earned on those days, summed from per-day ' +
          'totals kept with every movement (a movement counts on the UTC day it was written; a reversal takes back from that day): ' +
          '400 when `from` is after `to` or they are more than 3,660 days apart. `fields` may name affiliate_code, referred_volume ' +
          'and referred_users (the agency’s all-time figures of each entry’s user, read for each request) and tiers (accepted, not ' +
          'filled yet); any other name is a 400. ' +
          '`conversion_external_ids` is a 400: conversions have no external ids here yet. A page is a snapshot: it is read at ' +
          'most once per CLAIM_LEADERBOARD_CACHE_MS (1 s by default) and answered to every request for the same page of the same board ' +
          'in that time (concurrent requests share one read), so a new movement shows at most that much later; `calculated_at` says when ' +
          'the page was read. With `user_identifier` (or the SDK’s `user_address`), only that user’s entry, with its rank (over the range when one is given), read for each request. 404 CURRENCY_NOT_FOUND when the project has no currency at the address; 400 CURRENCY_AMBIGUOUS ' +
          'when the address (or, left out, the project’s currencies) names several: add `chain_id` (or `currency_address`). ' +
          'A wallet session token reads only its own wallet’s entry (the affiliate portal’s rank), in the project named by the ' +
          '`project_id` query parameter: the user may be left out, and naming another user is 403.',
        tags,
        auth: boardReader,
        query: leaderboardQuery,
        responses: {
          200: { description: 'A page of the leaderboard', schema: leaderboardSchema },
          404: { description: 'CURRENCY_NOT_FOUND: the project has no currency at this address (or none at all)' },
        },
      },
      async ({ query, caller }) => {
        refuseConversionIds(query);
        const identifier = leaderboardUser(query);
        // A wallet session's answer is always its own entry; a key reads the entry it names, or the page.
        const user =
          caller.kind === 'session'
            ? actingFor(caller, { identifier, identifierType: optionalIdentifierType(query), field: 'user_identifier' }).user
            : identifier === undefined
              ? undefined
              : { identifier, identifierType: identifierType(query) };
        const read = () =>
          clients.claim.getPayoutsLeaderboard({
            projectId: caller.projectId,
            currencyAddress: query.currency_address,
            chainId: query.chain_id === undefined ? undefined : String(query.chain_id),
            userType: enumValue(LeaderboardUserType, query.user_type),
            user,
            page: pageRequest(query),
            from: query.from,
            to: query.to,
            points: false,
          });
        const key = [caller.projectId, query.currency_address ?? null, query.chain_id ?? null];
        return { status: 200, body: await answer(read, caller.projectId, user !== undefined, query, key) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/payouts/leaderboard/points',
        operationId: 'getPointsLeaderboard',
        summary: 'Users ranked by the points they earned',
        description:
          'The Fuul SDK’s getPointsLeaderboard: the payouts board (GET /api/v1/payouts/leaderboard/payouts) of the project’s point ' +
          'currency (docs/claims.md#points), which a project has at most one of, so no currency is named. Points are whole: ' +
          '`total_amount` is exact, `chain_id` null. The same `user_type`, `from`/`to`, `fields`, own entry (`user_identifier`), ' +
          'paging and `calculated_at` as the payouts board; what reversals took back is off the totals. 404 ' +
          'POINT_CURRENCY_NOT_FOUND when the project has no point currency.',
        tags,
        auth: anyProjectKey,
        query: pointsLeaderboardQuery,
        responses: {
          200: { description: 'A page of the points leaderboard', schema: leaderboardSchema },
          404: { description: 'POINT_CURRENCY_NOT_FOUND: the project has no point currency' },
        },
      },
      async ({ query, caller }) => {
        refuseConversionIds(query);
        const identifier = leaderboardUser(query);
        const user = identifier === undefined ? undefined : { identifier, identifierType: identifierType(query) };
        const read = () =>
          clients.claim.getPayoutsLeaderboard({
            projectId: caller.projectId,
            userType: enumValue(LeaderboardUserType, query.user_type),
            user,
            page: pageRequest(query),
            from: query.from,
            to: query.to,
            points: true,
          });
        return { status: 200, body: await answer(read, caller.projectId, user !== undefined, query, [caller.projectId, 'points']) };
      },
    ),
  ];
}
