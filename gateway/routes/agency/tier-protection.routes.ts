import { TIER_PROTECTION_DAYS } from '../../../services/rules/contract-limits';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { presentAffiliate } from './agency.presenters';
import { affiliateQuery, affiliateSchema } from './agency.schemas';
import { tierProtectionBody } from './programs.schemas';
import { projectAdmin } from '../route-access';

const tags = ['Affiliates'];

/** Tier protection (§2.9, §8.2) of one affiliate, under /api/v1/projects/:projectId/affiliates/:userIdentifier (admin keys). */
export function tierProtectionRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'put',
        path: '/api/v1/projects/:projectId/affiliates/:userIdentifier/tier-protection',
        operationId: 'setTierProtection',
        summary: 'Protect an affiliate’s tier for a while',
        description:
          `Give \`tier_id\` (a tier: an audience segment with a tier_rank) and either \`protection_days\` (${TIER_PROTECTION_DAYS.min} to ` +
          `${TIER_PROTECTION_DAYS.max}, from now) or \`expires_at\` (at most ${TIER_PROTECTION_DAYS.max} days ahead). While it lasts the ` +
          '`active_tier` is the higher of the protected tier and the `current_tier` (what its memberships qualify it for); after, the ' +
          'current tier. A new protection replaces the one in force. 404 TIER_NOT_FOUND for no segment of the project, 400 NOT_A_TIER ' +
          'for a segment without a tier rank.',
        tags,
        auth: projectAdmin,
        query: affiliateQuery,
        body: tierProtectionBody,
        responses: {
          200: { description: 'The affiliate, with tier_protection { tier_id, expires_at, days_remaining }', schema: affiliateSchema },
          404: { description: 'AFFILIATE_NOT_FOUND or TIER_NOT_FOUND' },
        },
      },
      async ({ params, query, body, caller }) => {
        const affiliate = await clients.agency.setTierProtection({
          projectId: caller.projectId,
          user: { identifier: params.userIdentifier, identifierType: query.identifier_type },
          tierId: body.tier_id,
          protectionDays: body.protection_days,
          expiresAt: body.expires_at === undefined ? undefined : new Date(body.expires_at),
          actor: { apiKeyId: caller.keyId },
        });
        return { status: 200, body: presentAffiliate(affiliate) };
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/api/v1/projects/:projectId/affiliates/:userIdentifier/tier-protection',
        operationId: 'endTierProtection',
        summary: 'End an affiliate’s tier protection now',
        description: 'Its active tier is its current tier from now on. 404 TIER_PROTECTION_NOT_FOUND when none is in force.',
        tags,
        auth: projectAdmin,
        query: affiliateQuery,
        responses: {
          200: { description: 'The affiliate, without tier protection', schema: affiliateSchema },
          404: { description: 'AFFILIATE_NOT_FOUND or TIER_PROTECTION_NOT_FOUND' },
        },
      },
      async ({ params, query, caller }) => {
        const affiliate = await clients.agency.endTierProtection({
          projectId: caller.projectId,
          user: { identifier: params.userIdentifier, identifierType: query.identifier_type },
          actor: { apiKeyId: caller.keyId },
        });
        return { status: 200, body: presentAffiliate(affiliate) };
      },
    ),
  ];
}
