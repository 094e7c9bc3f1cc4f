import { StatsPeriod } from '../../../gen/referral/agency/v1/enums';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { presentAffiliateStats } from './affiliate-detail.presenters';
import { affiliateStatsSchema, dayStart, statsQuery } from './affiliate-detail.schemas';
import { walletSession } from '../route-access';

/** The signed-in wallet's own figures, under /api/v1/projects/:projectId/affiliate-portal (wallet session). */
export function affiliatePortalStatsRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/affiliate-portal/stats',
        operationId: 'getOwnAffiliateStats',
        summary: 'The signed-in affiliate’s own figures: totals, and one entry per UTC day of a range',
        description:
          'Totals are all time and equal what the affiliate list shows for this affiliate; `series` has every UTC day of ' +
          '[`from`, `to`] (both included, at most 366 days; by default the last 30 days up to today), oldest first, a day ' +
          'without conversions reading zero. Figures count the conversions attributed to this affiliate when they were ' +
          'processed; `referred_volume_usd` and `agency_earnings` are a master’s: what its sub-affiliates’ conversions brought it ' +
          'while bound. `from` after `to`, or ' +
          'a longer range, answers 400. A wallet that is no affiliate of the project answers 404 AFFILIATE_NOT_FOUND.',
        tags: ['Affiliate portal'],
        auth: walletSession,
        query: statsQuery,
        responses: {
          200: { description: 'Its figures', schema: affiliateStatsSchema },
          404: { description: 'AFFILIATE_NOT_FOUND' },
        },
      },
      async ({ query, caller }) => {
        const stats = await clients.agency.getAffiliateStats({
          projectId: caller.projectId,
          user: { identifier: caller.address, identifierType: 'evm_address' },
          from: dayStart(query.from),
          to: dayStart(query.to),
          groupBy: StatsPeriod.DAY,
        });
        return { status: 200, body: presentAffiliateStats(stats) };
      },
    ),
  ];
}
