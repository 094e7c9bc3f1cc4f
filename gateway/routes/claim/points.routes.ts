import type { PointBalance } from '../../../gen/referral/claim/v1/claim';
import { listBody, pageRequest } from '../../http/list';
import { required } from '../../http/present';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { projectAdmin } from '../route-access';
import { actingFor, userOfQuery, userReader } from './acting-for';
import { presentCurrencyRef, presentUser } from './claim.presenters';
import { pointBalanceQuery, pointBalanceSchema, pointBalancesQuery, pointBalancesSchema } from './points.schemas';

const tags = ['Payouts'];

function presentBalance(balance: PointBalance) {
  return {
    ...presentUser(balance.user),
    balance: balance.balance,
    credited: balance.credited,
    taken_back: balance.takenBack,
    updated_at: balance.updatedAt?.toISOString() ?? null,
  };
}

/** Points balances (docs/claims.md#points): a user's own (its key or its wallet session), and the project's top ones (an admin's). */
export function pointsRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/payouts/points/balance',
        operationId: 'getPointsBalance',
        summary: 'A user’s points balance',
        description:
          'What the user holds in the project’s point currency: every point that became available to it (`credited`: paid at once, ' +
          'released from a hold, approved), less what reversals took back (`taken_back`, never more than was credited, so `balance` ' +
          'is never below zero). A user never credited has a balance of "0". ' +
          'Acting for a user as on GET /api/v1/payouts/movements: a service_role or read_only key names it (400 without it), a ' +
          'wallet session reads its own (the affiliate portal). 404 POINT_CURRENCY_NOT_FOUND when the project has no point currency.',
        tags,
        auth: userReader,
        query: pointBalanceQuery,
        responses: {
          200: { description: 'The user’s balance', schema: pointBalanceSchema },
          404: { description: 'POINT_CURRENCY_NOT_FOUND: the project has no point currency; PROJECT_NOT_FOUND' },
        },
      },
      async ({ query, caller }) => {
        const { projectId, user } = actingFor(caller, userOfQuery(query));
        const answer = await clients.claim.listPointBalances({ projectId, user });
        const balance = required(answer.results[0], 'balance');
        return { status: 200, body: { ...presentBalance(balance), currency: presentCurrencyRef(answer.currency) } };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/points/balances',
        operationId: 'listPointsBalances',
        summary: 'The project’s points balances, highest first',
        description:
          'Every user’s balance in the project’s point currency, highest first (ties by identifier), as GET ' +
          '/api/v1/payouts/points/balance gives one; with `user_identifier`, only that user’s (one row, "0" when never credited: ' +
          'the dashboard’s view of one affiliate). Read from the balances kept with every movement (no scan). 404 ' +
          'POINT_CURRENCY_NOT_FOUND when the project has no point currency.',
        tags,
        auth: projectAdmin,
        query: pointBalancesQuery,
        responses: {
          200: { description: 'A page of balances', schema: pointBalancesSchema },
          404: { description: 'POINT_CURRENCY_NOT_FOUND: the project has no point currency; PROJECT_NOT_FOUND' },
        },
      },
      async ({ params, query }) => {
        const user =
          query.user_identifier === undefined
            ? undefined
            : { identifier: query.user_identifier, identifierType: query.user_identifier_type ?? 'evm_address' };
        const answer = await clients.claim.listPointBalances({ projectId: params.projectId, user, page: pageRequest(query) });
        return { status: 200, body: { ...listBody(answer, presentBalance), currency: presentCurrencyRef(answer.currency) } };
      },
    ),
  ];
}
