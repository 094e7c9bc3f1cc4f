import { type AnyRoute, defineRoute } from '../../http/route';
import { listBody, pageRequest } from '../../http/list';
import type { RouteDeps } from '../route-deps';
import { projectReader } from '../route-access';
import { presentTrackingEvent } from './tracking-events.presenters';
import { trackingEventListQuery, trackingEventListSchema } from './tracking-events.schemas';

/** The project's tracking events (POST /api/v1/events), each saying what it did. */
export function trackingEventRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/events',
        operationId: 'listTrackingEvents',
        summary: 'The project’s tracking events, newest first, each with what it did',
        description:
          'Events as received by `POST /api/v1/events`, newest first, filtered by `tracking_id`, `name` or user. Once its batch is ' +
          'processed (`processed_at`), a pageview whose referrer names a code says `click` (a click counted once per code, ' +
          'tracking id and UTC day) or `unknown_code`; a connect_wallet says `referred`, `already_referred` (the first referral ' +
          'stays), `self_referral`, `affiliate_suspended`, `referral_cycle` (the wallet is an affiliate above the code’s in its ' +
          'referral chain), `no_click` (no click of its tracking id within the attribution window ' +
          'of the program settings) or `unverified` (no verified signature). Other events have no outcome. An invalid ' +
          '`user_identifier` is a 400 naming it.',
        tags: ['Tracking'],
        auth: projectReader,
        query: trackingEventListQuery,
        responses: { 200: { description: 'A page of events', schema: trackingEventListSchema } },
      },
      async ({ query, caller }) => {
        const page = await clients.agency.listTrackingEvents({
          projectId: caller.projectId,
          page: pageRequest(query),
          trackingId: query.tracking_id,
          name: query.name,
          user: query.user_identifier === undefined ? undefined : { identifier: query.user_identifier, identifierType: query.user_identifier_type },
        });
        return { status: 200, body: listBody(page, presentTrackingEvent) };
      },
    ),
  ];
}
