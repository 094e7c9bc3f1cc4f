import type { ApproveMovementsResponse, DeclineMovementsResponse } from '../../../gen/referral/claim/v1/claim';
import { DecisionOutcome } from '../../../gen/referral/claim/v1/enums';
import { nameOf } from '../../http/present';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { projectAdmin } from '../route-access';
import { presentConversionMovement } from './claim.presenters';
import { movementDecisionBody, movementDecisionsSchema } from './claim.schemas';

const tags = ['Payouts administration'];

function presentDecisions(response: ApproveMovementsResponse | DeclineMovementsResponse) {
  return {
    results: response.results.map((result) => ({
      conversion_id: result.conversionId,
      outcome: nameOf(DecisionOutcome, result.outcome, 'outcome'),
      movements: result.movements.map(presentConversionMovement),
    })),
  };
}

const IDEMPOTENT =
  'Each conversion is reported alone; a conversion decided before reports `already_approved` or `already_declined` and changes ' +
  'nothing, so the same call again changes nothing.';

/** An admin's approvals and declines of movements waiting for approval or review (the payout terms' require_approval). */
export function movementDecisionRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/movements/approve',
        operationId: 'approveMovements',
        summary: 'Approve the waiting movements of conversions',
        description:
          'Approves every pending movement of these conversions that waits for `approval` (or `review`): a movement whose ' +
          '`available_at` has passed becomes `available` now, in the open claim check of its user, currency and reason; one still ' +
          `within its hold waits for the rest of it (\`pending\`, reason \`hold\`) and is released by the periodic job. ${IDEMPOTENT}`,
        tags,
        auth: projectAdmin,
        body: movementDecisionBody,
        responses: {
          200: { description: 'Per conversion, what the approval did', schema: movementDecisionsSchema },
          400: { description: 'VALIDATION_FAILED' },
        },
      },
      async ({ body, caller }) => {
        const response = await clients.claim.approveMovements({
          projectId: caller.projectId,
          conversionIds: body.conversion_ids,
          reason: body.reason,
          decidedBy: caller.keyId,
        });
        return { status: 200, body: presentDecisions(response) };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/movements/decline',
        operationId: 'declineMovements',
        summary: 'Decline the waiting movements of conversions',
        description:
          'Declines every pending movement of these conversions that waits for `approval` (or `review`): it becomes `declined`, is ' +
          'never paid, and keeps `reason`. The agency’s figures of the conversion (earned at processing) are not adjusted. ' +
          IDEMPOTENT,
        tags,
        auth: projectAdmin,
        body: movementDecisionBody,
        responses: {
          200: { description: 'Per conversion, what the decline did', schema: movementDecisionsSchema },
          400: { description: 'VALIDATION_FAILED' },
        },
      },
      async ({ body, caller }) => {
        const response = await clients.claim.declineMovements({
          projectId: caller.projectId,
          conversionIds: body.conversion_ids,
          reason: body.reason,
          decidedBy: caller.keyId,
        });
        return { status: 200, body: presentDecisions(response) };
      },
    ),
  ];
}
