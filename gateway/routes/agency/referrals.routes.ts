import { type AnyRoute, defineRoute } from '../../http/route';
import { serviceRole } from '../route-access';
import type { RouteDeps } from '../route-deps';
import { referralBody, referralSchema } from './agency.schemas';
import { recordReferral } from './record-referral';

/** Who referred whom, from the project's backend (service_role keys). */
export function referralRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/referrals',
        operationId: 'createReferral',
        summary: 'Record that a user was referred with an affiliate’s code',
        description:
          'The first referral of a user wins and is never overwritten: the same affiliate again (with any of its codes) answers 200 with the ' +
          'stored referral; another affiliate answers 409 ALREADY_REFERRED. An affiliate cannot refer itself (400 SELF_REFERRAL), a ' +
          'suspended affiliate’s code refers nobody (409 AFFILIATE_SUSPENDED), a user that is an affiliate above the code’s affiliate in its ' +
          'referral chain cannot be referred by it (409 REFERRAL_CYCLE: docs/claims.md#referral-levels), and an unknown code answers 404 CODE_NOT_FOUND. ' +
          'The code’s letter case is ignored.',
        tags: ['Referrals'],
        auth: serviceRole,
        body: referralBody,
        responses: {
          200: { description: 'The user was already referred by this affiliate: the stored referral, unchanged', schema: referralSchema },
          201: { description: 'The referral', schema: referralSchema },
          404: { description: 'CODE_NOT_FOUND' },
          409: { description: 'ALREADY_REFERRED, AFFILIATE_SUSPENDED or REFERRAL_CYCLE' },
        },
      },
      async ({ body, caller }) =>
        recordReferral(clients, {
          projectId: caller.projectId,
          user: { identifier: body.user_identifier, identifierType: body.user_identifier_type },
          code: body.code,
        }),
    ),
  ];
}
