import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { presentClaimSettings } from './claim-checks.presenters';
import { claimSettingsBody, claimSettingsSchema } from './claim-checks.schemas';
import { projectAdmin } from '../route-access';

const tags = ['Claim checks (@fuul/sdk)'];

/** The project's address on chain, which every voucher names as projectAddress (admin). */
export function claimSettingsRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/claim-settings',
        operationId: 'getClaimSettings',
        summary: 'The project’s on-chain address for claims',
        description: '404 CLAIM_SETTINGS_NOT_FOUND until it is set: until then no claim check of the project can be closed.',
        tags,
        auth: projectAdmin,
        responses: {
          200: { description: 'The claim settings', schema: claimSettingsSchema },
          404: { description: 'Not set yet, or no such project' },
        },
      },
      async ({ params }) => ({ status: 200, body: presentClaimSettings(await clients.claim.getClaimSettings({ projectId: params.projectId })) }),
    ),
    defineRoute(
      {
        method: 'put',
        path: '/api/v1/projects/:projectId/claim-settings',
        operationId: 'putClaimSettings',
        summary: 'Sets the project’s on-chain address for claims',
        description:
          'The account the project’s deposits are held under in the ClaimManager of each configured chain; every voucher names it as ' +
          'projectAddress. Vouchers already signed keep the address they were signed with.',
        tags,
        auth: projectAdmin,
        body: claimSettingsBody,
        responses: { 200: { description: 'The claim settings', schema: claimSettingsSchema }, 404: { description: 'No such project' } },
      },
      async ({ params, body }) => ({
        status: 200,
        body: presentClaimSettings(await clients.claim.putClaimSettings({ projectId: params.projectId, projectAddress: body.project_address })),
      }),
    ),
  ];
}
