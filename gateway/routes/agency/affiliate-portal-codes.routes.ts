import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { presentOwnAffiliate } from './agency.presenters';
import { affiliateSchema, codeBody, codeRebateRateBody } from './agency.schemas';
import { presentPortalAffiliate } from './programs.presenters';
import { portalAffiliateSchema } from './programs.schemas';
import { walletSession } from '../route-access';

const tags = ['Affiliate portal'];

/** The signed-in wallet's affiliate record and its own referral codes, under /api/v1/projects/:projectId/affiliate-portal (wallet session). */
export function affiliatePortalCodeRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/affiliate-portal/affiliate',
        operationId: 'getOwnAffiliate',
        summary: 'The signed-in wallet’s affiliate record in the project, each code with its referral link',
        description:
          'Whether the wallet is an affiliate of the project, decided by the affiliate record however it was made (an application ' +
          'approved, an admin, the SDK): 404 AFFILIATE_NOT_FOUND when it is none (its application, if any, is ' +
          '`GET …/affiliate-portal/application`). Each code carries its `link`, the project’s link template with the code ' +
          '(`GET …/program-settings`); `link` is null while the program has no link (no program URL).',
        tags,
        auth: walletSession,
        responses: { 200: { description: 'The affiliate', schema: portalAffiliateSchema }, 404: { description: 'AFFILIATE_NOT_FOUND' } },
      },
      async ({ caller }) => {
        const [affiliate, settings] = await Promise.all([
          clients.agency.getAffiliate({ projectId: caller.projectId, user: { identifier: caller.address, identifierType: 'evm_address' } }),
          clients.agency.getProgramSettings({ projectId: caller.projectId }),
        ]);
        return { status: 200, body: presentPortalAffiliate(affiliate, settings) };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/affiliate-portal/codes',
        operationId: 'addOwnAffiliateCode',
        summary: 'Add a referral code for the signed-in wallet, which must be an affiliate of the project',
        description:
          'A code is 3 to 32 of A-Z a-z 0-9 _ - and unique in the project whatever its letter case (409 CODE_IN_USE); an affiliate ' +
          'holds at most 20 (409 CODE_LIMIT_REACHED). A wallet that is no affiliate of the project answers 404 AFFILIATE_NOT_FOUND.',
        tags,
        auth: walletSession,
        body: codeBody,
        responses: {
          201: { description: 'The affiliate with its codes', schema: affiliateSchema },
          404: { description: 'AFFILIATE_NOT_FOUND' },
          409: { description: 'CODE_IN_USE or CODE_LIMIT_REACHED' },
        },
      },
      async ({ body, caller }) => {
        const affiliate = await clients.agency.addAffiliateCode({
          projectId: caller.projectId,
          user: { identifier: caller.address, identifierType: 'evm_address' },
          code: body.code,
        });
        return { status: 201, body: presentOwnAffiliate(affiliate) };
      },
    ),
    defineRoute(
      {
        method: 'patch',
        path: '/api/v1/projects/:projectId/affiliate-portal/codes/:code',
        operationId: 'updateOwnCodeRebateRate',
        summary: 'Set or clear the user rebate rate of one of the signed-in affiliate’s codes',
        description:
          '`rebate_rate` (0 to 0.2, at most two decimals, else 400 VALIDATION_FAILED; null clears it) is the share of the affiliate’s ' +
          'own reward that goes to each user it referred through the code, from their next conversions on: the same change as the ' +
          'SDK’s updateRebateRate and the admin’s `PATCH …/affiliates/:userIdentifier/codes/:code`, here under the wallet session. ' +
          'The code is matched whatever its letter case (404 CODE_NOT_FOUND when the affiliate holds none); a wallet that is no ' +
          'affiliate of the project answers 404 AFFILIATE_NOT_FOUND.',
        tags,
        auth: walletSession,
        body: codeRebateRateBody,
        responses: {
          200: { description: 'The affiliate with its codes', schema: affiliateSchema },
          404: { description: 'AFFILIATE_NOT_FOUND or CODE_NOT_FOUND' },
        },
      },
      async ({ params, body, caller }) => {
        const affiliate = await clients.agency.setCodeRebateRate({
          projectId: caller.projectId,
          user: { identifier: caller.address, identifierType: 'evm_address' },
          code: params.code,
          userRebateRateBps: body.rebate_rate ?? undefined,
        });
        return { status: 200, body: presentOwnAffiliate(affiliate) };
      },
    ),
  ];
}
