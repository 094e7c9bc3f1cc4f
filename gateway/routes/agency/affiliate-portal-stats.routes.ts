import { StatsPeriod } from '../../../gen/referral/agency/v1/enums';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { presentAffiliateStats, presentLevelFigures } from './affiliate-detail.presenters';
import { dayStart, ownAffiliateStatsSchema, statsQuery } from './affiliate-detail.schemas';
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
          'while bound. `levels` are its all-time figures at each of the four referral levels (docs/claims.md#referral-levels). `from` after `to`, or ' +
          'a longer range, answers 400. A wallet that is no affiliate of the project answers 404 AFFILIATE_NOT_FOUND.',
        tags: ['Affiliate portal'],
        auth: walletSession,
        query: statsQuery,
        responses: {
          200: { description: 'Its figures', schema: ownAffiliateStatsSchema },
          404: { description: 'AFFILIATE_NOT_FOUND' },
        },
      },
      async ({ query, caller }) => {
        const user = { identifier: caller.address, identifierType: 'evm_address' };
        const [stats, figures] = await Promise.all([
          clients.agency.getAffiliateStats({
            projectId: caller.projectId,
            user,
            from: dayStart(query.from),
            to: dayStart(query.to),
            groupBy: StatsPeriod.DAY,
          }),
          // Unbounded: all time, as the totals above.
          clients.agency.getAffiliateFigures({ projectId: caller.projectId, user }),
        ]);
        return { status: 200, body: { ...presentAffiliateStats(stats), levels: figures.levels.map(presentLevelFigures) } };
      },
    ),
  ];
}
