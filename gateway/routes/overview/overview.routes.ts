import { HttpError } from '../../http/errors';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { projectAdmin } from '../route-access';
import { conversionFigures, daysOf } from './overview.figures';
import { namedAffiliates, newAffiliates, periodConversions, queueCounts } from './overview.reads';
import { MAX_PERIOD_DAYS, overviewQuery, overviewSchema } from './overview.schemas';

const DAY_MS = 86_400_000;

/** The admin home's one read: the project, its figures over a period, its queues and its top affiliates. */
export function overviewRoutes({ clients, access }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/overview',
        operationId: 'getProjectOverview',
        summary: 'The admin home: the project’s name, its figures over a period, the queues waiting and the top affiliates',
        description:
          '`from` and `to` are UTC days, both included (at most 366 days; `to` before `from` answers 400). The figures count the ' +
          'conversions received in the period (each on the UTC day it was received, any status): their number, USD volume and what ' +
          'they pay per currency (net of reversals, declined movements left out), per day and in all; and the affiliates that joined. ' +
          'They are summed from the newest conversions and affiliates back to the period’s start, at most 5,000 of each: `complete` ' +
          'is false when the period holds more. The queues are counted whatever the period: applications pending, tax forms ' +
          'submitted for review, open conversion reviews, and webhook endpoints whose newest delivery failed or is being retried.',
        tags: ['Projects'],
        auth: projectAdmin,
        query: overviewQuery,
        responses: { 200: { description: 'The overview', schema: overviewSchema } },
      },
      async ({ query, caller }) => {
        const from = new Date(`${query.from}T00:00:00Z`);
        const to = new Date(Date.parse(`${query.to}T00:00:00Z`) + DAY_MS);
        const span = (to.getTime() - from.getTime()) / DAY_MS;
        if (span <= 0) throw new HttpError(400, 'VALIDATION_FAILED', 'to: is before from', [{ field: 'to', reason: 'is before from' }]);
        if (span > MAX_PERIOD_DAYS) {
          const reason = `is more than ${MAX_PERIOD_DAYS} days after from`;
          throw new HttpError(400, 'VALIDATION_FAILED', `to: ${reason}`, [{ field: 'to', reason }]);
        }
        const projectId = caller.projectId;
        const [project, conversions, affiliates, queues] = await Promise.all([
          access.project(projectId),
          periodConversions(clients, projectId, from, to),
          newAffiliates(clients, projectId, from, to),
          queueCounts(clients, projectId),
        ]);
        const { top, ...figures } = conversionFigures(conversions.items, daysOf(query.from, query.to));
        return {
          status: 200,
          body: {
            project: { id: projectId, name: project?.name ?? '' },
            period: { from: query.from, to: query.to },
            queues,
            figures: { ...figures, new_affiliates: affiliates.count, complete: conversions.complete && affiliates.complete },
            top_affiliates: await namedAffiliates(clients, projectId, top),
          },
        };
      },
    ),
  ];
}
