import { ReferredUserSort } from '../../../gen/referral/agency/v1/enums';
import { EffectiveTaxStatus } from '../../../gen/referral/tax/v1/enums';
import { enumValue } from '../../../services/rules/enums';
import { listBody, pageRequest } from '../../http/list';
import { nameOf, required } from '../../http/present';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import {
  presentAffiliateClicks,
  presentAudiences,
  presentHistoryItem,
  presentReferralLevels,
  presentReferredUser,
} from './affiliate-detail.presenters';
import {
  affiliateClicksSchema,
  affiliateDetailSchema,
  clicksQuery,
  dayStart,
  historyListSchema,
  historyQuery,
  referralsQuery,
  referredUserListSchema,
} from './affiliate-detail.schemas';
import { presentAffiliate, presentAffiliateMetrics } from './agency.presenters';
import { affiliateQuery } from './agency.schemas';
import { projectReader } from '../route-access';

const tags = ['Affiliates'];
const NOT_FOUND = { description: 'AFFILIATE_NOT_FOUND: this user is not an affiliate of the project (or PROJECT_NOT_FOUND)' };

/** The affiliate detail view (§2.9): the affiliate with its audiences and badges, its history, its referral tree. */
export function affiliateDetailRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/affiliates/:userIdentifier',
        operationId: 'getAffiliate',
        summary: 'One affiliate: status, tiers, audiences and badges, tax status, and the paths of its history and referral tree',
        description:
          'The agency (the affiliate), then the audience service (its segments and their badges), the tax service (its tax status) ' +
          'and the agency again (its referral tree, `referral_tree`: its figures at each of the ' +
          'four referral levels with the affiliates counted there, and its downline affiliates, docs/claims.md#referral-levels). `links` names the paged lists of the detail view: `history`, `referrals` (the users ' +
          'it referred, with their figures) and, for a master, `sub_affiliates`.',
        tags,
        auth: projectReader,
        query: affiliateQuery,
        responses: { 200: { description: 'The affiliate', schema: affiliateDetailSchema }, 404: NOT_FOUND },
      },
      async ({ params, query, caller }) => {
        const affiliate = await clients.agency.getAffiliate({
          projectId: caller.projectId,
          user: { identifier: params.userIdentifier, identifierType: query.identifier_type },
        });
        const user = required(affiliate.user, 'user');
        const [audiences, taxStatuses, figures, tree] = await Promise.all([
          clients.userAudiences.load({ projectId: caller.projectId, identifier: user.identifier, identifierType: user.identifierType }),
          clients.tax.batchGetTaxStatuses({ projectId: caller.projectId, users: [user] }),
          clients.agency.getAffiliateFigures({ projectId: caller.projectId, user }),
          clients.agency.getReferralTree({ projectId: caller.projectId, user }),
        ]);
        const base = `/api/v1/projects/${caller.projectId}`;
        const self = `${base}/affiliates/${encodeURIComponent(user.identifier)}`;
        const typeQuery = `identifier_type=${encodeURIComponent(user.identifierType)}`;
        return {
          status: 200,
          body: {
            ...presentAffiliate(affiliate),
            ...presentAffiliateMetrics(affiliate),
            tax_status: nameOf(EffectiveTaxStatus, required(taxStatuses.results[0], 'tax_status').status, 'tax_status'),
            ...presentAudiences(audiences),
            referral_tree: presentReferralLevels(figures, tree),
            links: {
              history: `${self}/history?${typeQuery}`,
              referrals: `${self}/referrals?${typeQuery}`,
              sub_affiliates: affiliate.isMaster ? `${base}/agencies/${affiliate.id}/sub-affiliates` : null,
            },
          },
        };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/affiliates/:userIdentifier/history',
        operationId: 'getAffiliateHistory',
        summary: 'An affiliate’s activity history, newest first',
        description:
          'Each item is `{ type, at, data }`; the types and the fields of their `data` are listed in the schema of `type`. Entries of ' +
          'one instant come in a stable order, so pages never repeat or skip one while nothing new happens.',
        tags,
        auth: projectReader,
        query: historyQuery,
        responses: { 200: { description: 'A page of history', schema: historyListSchema }, 404: NOT_FOUND },
      },
      async ({ params, query, caller }) => {
        const page = await clients.agency.getAffiliateHistory({
          projectId: caller.projectId,
          user: { identifier: params.userIdentifier, identifierType: query.identifier_type },
          page: pageRequest(query),
        });
        return { status: 200, body: listBody(page, presentHistoryItem) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/affiliates/:userIdentifier/referrals',
        operationId: 'listAffiliateReferrals',
        summary: 'The users an affiliate referred, with the volume, revenue and conversions each brought it',
        tags,
        auth: projectReader,
        query: referralsQuery,
        responses: { 200: { description: 'A page of referred users', schema: referredUserListSchema }, 404: NOT_FOUND },
      },
      async ({ params, query, caller }) => {
        const page = await clients.agency.listAffiliateReferrals({
          projectId: caller.projectId,
          user: { identifier: params.userIdentifier, identifierType: query.identifier_type },
          sortBy: query.sort_by === undefined ? ReferredUserSort.UNSPECIFIED : enumValue(ReferredUserSort, query.sort_by),
          page: pageRequest(query),
        });
        return { status: 200, body: listBody(page, presentReferredUser) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/affiliates/:userIdentifier/clicks',
        operationId: 'getAffiliateClicks',
        summary: 'An affiliate’s clicks per UTC day, of all its codes or of one',
        description:
          'A click is a pageview naming one of its codes, counted once per code, tracking id and UTC day (the tracking events ' +
          'processing). `series` has every UTC day of [`from`, `to`] (both included, at most 366 days; by default the last 30 days ' +
          'up to today), oldest first, a day without clicks reading zero. `code` (any letter case) narrows it to one of the ' +
          'affiliate’s codes: 404 CODE_NOT_FOUND when it holds none. `from` after `to`, or a longer range, answers 400.',
        tags,
        auth: projectReader,
        query: clicksQuery,
        responses: {
          200: { description: 'Its clicks per day', schema: affiliateClicksSchema },
          404: { description: 'AFFILIATE_NOT_FOUND or CODE_NOT_FOUND (or PROJECT_NOT_FOUND)' },
        },
      },
      async ({ params, query, caller }) => {
        const clicks = await clients.agency.getAffiliateClicks({
          projectId: caller.projectId,
          user: { identifier: params.userIdentifier, identifierType: query.identifier_type },
          code: query.code,
          from: dayStart(query.from),
          to: dayStart(query.to),
        });
        return { status: 200, body: presentAffiliateClicks(clicks) };
      },
    ),
  ];
}
