import { z } from 'zod';
import type { GetReconciliationResponse } from '../../../gen/referral/claim/v1/claim';
import { MovementKind } from '../../../gen/referral/claim/v1/enums';
import { enumNames } from '../../../services/rules/enums';
import { nameOf } from '../../http/present';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { projectAdmin } from '../route-access';
import { presentCurrencyRef } from './claim.presenters';
import { currencyRefSchema } from './claim.schemas';

const tags = ['Payouts administration'];

const reconciliationQuery = z.object({
  currency_id: z.string().max(64).optional().describe('One currency of the project (its id); every currency of the project when left out'),
});

const units = (what: string) => z.string().describe(`${what}: base units as a decimal string`);

const reconciliationLineSchema = z.object({
  currency: currencyRefSchema,
  kind: z.enum(enumNames(MovementKind)),
  earned: units('Every movement, what the payout terms’ caps cut from it included'),
  capped: units('What the payout terms’ caps cut from movements, never paid'),
  reversed: units('Taken back by reversals of conversions (POST /api/v1/conversions/{conversionId}/reverse)'),
  declined: units('Movements declined by an admin, never paid (net of reversals before the decline)'),
  pending: units('Movements waiting (hold, approval, review), in no claim check, net of their reversals'),
  available: units('Movements available, each in a claim check, net of their reversals'),
  in_open_checks: units('Open claim checks of the kind’s reason (movements and credits)'),
  in_closed_checks: units('Closed claim checks: signed vouchers not redeemed yet'),
  claimed: units('Claim checks redeemed on chain'),
  expired: units('Claim checks whose voucher expired unredeemed'),
  credited_back: units('What expired checks gave back to open checks'),
  debt: units('What users owe: reversals of amounts whose voucher was out, not yet paid out of later earnings'),
  balanced: z
    .boolean()
    .describe(
      'earned = capped + reversed + declined + pending + available, and available + credited_back + debt = in_open_checks + ' +
        'in_closed_checks + claimed + expired',
    ),
});

const reconciliationSchema = z.object({
  results: z.array(reconciliationLineSchema).describe('Per currency (in creation order) the three kinds: affiliate, end user, agency payouts'),
  balanced: z.boolean().describe('Every line balanced'),
});

function presentReconciliation(response: GetReconciliationResponse) {
  return {
    results: response.results.map((line) => ({
      currency: presentCurrencyRef(line.currency),
      kind: nameOf(MovementKind, line.kind, 'kind'),
      earned: line.earned,
      capped: line.capped,
      reversed: line.reversed,
      declined: line.declined,
      pending: line.pending,
      available: line.available,
      in_open_checks: line.inOpenChecks,
      in_closed_checks: line.inClosedChecks,
      claimed: line.claimed,
      expired: line.expired,
      credited_back: line.creditedBack,
      debt: line.debt,
      balanced: line.balanced,
    })),
    balanced: response.balanced,
  };
}

/** The books of the project: what the ledger holds per currency and kind, and whether it balances (an admin's). */
export function reconciliationRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/ledger/reconciliation',
        operationId: 'getLedgerReconciliation',
        summary: 'What the ledger holds per currency and kind, and whether it balances',
        description:
          'Per currency of the project (or the one `currency_id` names) and kind, read in one snapshot of the database: the ' +
          'movements by status, the claim checks by status, the credits expired checks gave back, and `balanced` from the books’ ' +
          'identity (docs/architecture.md): earned = capped + reversed + declined + pending + available, and available + ' +
          'credited_back + debt = in_open_checks + in_closed_checks + claimed + expired. Caps, reversals and debt are not built ' +
          'yet: their figures are "0".',
        tags,
        auth: projectAdmin,
        query: reconciliationQuery,
        responses: {
          200: { description: 'The figures and whether they balance', schema: reconciliationSchema },
          404: { description: 'CURRENCY_NOT_FOUND: currency_id names no currency of the project; PROJECT_NOT_FOUND' },
        },
      },
      async ({ params, query }) => ({
        status: 200,
        body: presentReconciliation(await clients.claim.getReconciliation({ projectId: params.projectId, currencyId: query.currency_id })),
      }),
    ),
  ];
}
