import type { z } from 'zod';
import type { Affiliate, ListAffiliatesResponse } from '../../../gen/referral/agency/v1/agency';
import { AffiliateSort, AffiliateStatus, SortOrder } from '../../../gen/referral/agency/v1/enums';
import { FreshReads } from '../../../services/platform/shared-reads';
import { enumValue, optionalEnumValue } from '../../../services/rules/enums';
import type { CallerFor } from '../../auth/caller';
import { listBody, pageRequest } from '../../http/list';
import { count, required } from '../../http/present';
import { type AnyRoute, defineRoute, sharedBody } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { presentAffiliate, presentAffiliateListItem } from './agency.presenters';
import {
  affiliateListQuery,
  affiliateListSchema,
  affiliateQuery,
  affiliateSchema,
  codeBody,
  codeRebateRateBody,
  createAffiliateBody,
  rebuildMetricsSchema,
  suspendBody,
  flagBody,
  updateAffiliateBody,
} from './agency.schemas';
import { projectAdmin, projectReader } from '../route-access';

const tags = ['Affiliates'];
/** A rebuild reads every paid conversion of the project: it may take far longer than a normal call. */
const REBUILD_TIMEOUT_MS = 120_000;

/** The affiliate a path names: `:userIdentifier` with its `identifier_type` query. */
function target(params: { userIdentifier: string }, query: { identifier_type: string }, caller: CallerFor<typeof projectReader>) {
  return { projectId: caller.projectId, user: { identifier: params.userIdentifier, identifierType: query.identifier_type } };
}

/** What the list asks the agency for a request's query. */
function listRequest(projectId: string, query: z.output<typeof affiliateListQuery>) {
  return {
    projectId,
    status: optionalEnumValue(AffiliateStatus, query.status),
    region: query.region,
    q: query.q,
    audienceId: query.audience,
    anyAudienceIds: query.audience_ids,
    conversionNames: query.conversions,
    sortBy: enumValue(AffiliateSort, query.sort_by),
    order: enumValue(SortOrder, query.order),
    page: pageRequest(query),
  };
}

/** A page of the list as answered: the agency answers each item's tax status from its projection of the tax service's events (no second call). */
function affiliateListBody(page: ListAffiliatesResponse) {
  return listBody(page, (affiliate, index) => presentAffiliateListItem(affiliate, required(page.taxStatuses[index], 'tax_status')));
}
type AffiliateListBody = ReturnType<typeof affiliateListBody>;

const NOT_FOUND = { description: 'AFFILIATE_NOT_FOUND: this user is not an affiliate of the project (or PROJECT_NOT_FOUND)' };

/** What a status change declares beyond its path: `body` for the two that take a reason, `conflict` the 409 it may answer. */
interface StatusChange {
  operationId: string;
  summary: string;
  description: string;
  body?: typeof suspendBody | typeof flagBody;
  answer: string;
  conflict?: string;
}

/** The change an admin key asks of the agency: the affiliate and the key as the actor. */
type StatusChangeRequest = ReturnType<typeof target> & { actor: { apiKeyId: string } };

/**
 * Suspend, reactivate, flag, unflag: `POST .../affiliates/:userIdentifier/<change>` by an admin key, answering the affiliate as the
 * change leaves it (404 when it is none, 409 `conflict` where the change cannot apply).
 */
function statusChangeRoute(
  change: 'suspend' | 'reactivate' | 'flag' | 'unflag',
  { body: reasonBody, answer, conflict, ...declaration }: StatusChange,
  apply: (request: StatusChangeRequest, reason: string) => Promise<Affiliate>,
) {
  const answers = { 200: { description: answer, schema: affiliateSchema }, 404: NOT_FOUND };
  return defineRoute(
    {
      method: 'post',
      path: `/api/v1/projects/:projectId/affiliates/:userIdentifier/${change}`,
      ...declaration,
      tags,
      auth: projectAdmin,
      query: affiliateQuery,
      body: reasonBody,
      responses: conflict === undefined ? answers : { ...answers, 409: { description: conflict } },
    },
    async ({ params, query, body, caller }) => {
      // The reason is read only by the two changes whose body carries one.
      const affiliate = await apply({ ...target(params, query, caller), actor: { apiKeyId: caller.keyId } }, body?.reason ?? '');
      return { status: 200, body: presentAffiliate(affiliate) };
    },
  );
}

/** Affiliate administration under /api/v1/projects/:projectId/affiliates (admin keys; read_only may read). */
export function affiliateRoutes({ clients, sharedReads }: RouteDeps): AnyRoute[] {
  // Identical list requests (same project, filters, sort and page) that overlap share one read, each
  // read begun after every request it answers arrived (as the claim-check list): a change committed
  // before a request is in its answer. Under load (admins and dashboards polling the same views), a
  // page costs one gRPC call, one agency read and one JSON encoding per batch of identical requests.
  const lists = new FreshReads<AffiliateListBody>(sharedReads('affiliate_list'));
  return [
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/affiliates',
        operationId: 'createAffiliate',
        summary: 'Make a user an affiliate of the project',
        description:
          'One affiliate per user per project: a second answers 409 AFFILIATE_EXISTS. With `code`, the affiliate gets it in the same step ' +
          '(409 CODE_IN_USE when the project has it in any letter case, and then no affiliate is created).',
        tags,
        auth: projectAdmin,
        body: createAffiliateBody,
        responses: {
          201: { description: 'The affiliate', schema: affiliateSchema },
          409: { description: 'AFFILIATE_EXISTS or CODE_IN_USE' },
        },
      },
      async ({ body, caller }) => {
        const affiliate = await clients.agency.createAffiliate({
          projectId: caller.projectId,
          user: { identifier: body.identifier, identifierType: body.identifier_type },
          name: body.name,
          region: body.region ?? undefined,
          code: body.code,
          actor: { apiKeyId: caller.keyId },
        });
        return { status: 201, body: presentAffiliate(affiliate) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/affiliates',
        operationId: 'listAffiliates',
        summary: 'The project’s affiliates with their metrics and tax status, filtered and sorted',
        description:
          'Filters combine: `status`, `region` (ISO 3166-1 alpha-2), `q` (a prefix of the identifier or of the name), `audience` ' +
          '(members of one segment), `audience_ids` (members of any of several, comma-separated) and `conversions` (affiliates with ' +
          'at least one conversion of any of these names, comma-separated). `sort_by` is `joined_at` (default) or a metric ' +
          '(`volume_usd`, `revenue_usd`, `conversions`, `end_users`, `referred_volume_usd`, `clicks`), `order` `desc` (default) or `asc`; ties ' +
          'are broken by id in the same direction, so pages never overlap. `end_users` counts every user the affiliate referred, ' +
          'converted or not, from the moment the referral is recorded; `converting_users` those of them with a conversion. Other ' +
          'metrics come from the claim service’s conversion events ' +
          'and memberships from the audience service’s entry events, so a change shows here once its event is applied (normally ' +
          'within a second). Each item carries `tax_status`, the effective status the tax service answers (an approved W-8 past its ' +
          'expiry reads `expired` at once), read from the agency’s projection of the tax service’s status and settings events: a ' +
          'submission, review or settings change shows here once its event is applied (normally within a second). Records and ' +
          'settings older than the projection were published to it once, by a tax service migration (0004_publish_tax_statuses). ' +
          'Always current: a change the agency applied before the request is in its answer (identical requests that arrive while one ' +
          'is being read share the next read).',
        tags,
        auth: projectReader,
        query: affiliateListQuery,
        responses: { 200: { description: 'A page of affiliates', schema: affiliateListSchema } },
      },
      async ({ query, caller }) => {
        // The key is the agency request itself: whatever a filter adds to it, two requests share only an identical read.
        const request = listRequest(caller.projectId, query);
        const body = await lists.read(JSON.stringify(request), async () =>
          sharedBody(affiliateListBody(await clients.agency.listAffiliates(request))),
        );
        return { status: 200, body };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/affiliates/metrics/rebuild',
        operationId: 'rebuildAffiliateMetrics',
        summary: 'Recompute the affiliate metrics from the claim service',
        description:
          'Reads every paid conversion of the project from the claim service (with its frozen attribution, currency, payouts and reversals), ' +
          'adds those the metrics lack, applies the reversals not applied yet (each once), and recomputes every affiliate’s figures from them in one transaction. The result equals what ' +
          'the conversion events build; conversions arriving meanwhile count exactly once. Synchronous (about 1,000 conversions per ' +
          'page, a deadline of two minutes): answers once done; safe to run again.',
        tags,
        auth: projectAdmin,
        responses: { 200: { description: 'What the rebuild read and holds', schema: rebuildMetricsSchema } },
      },
      async ({ caller }) => {
        const result = await clients.agency.rebuildAffiliateMetrics({ projectId: caller.projectId }, { timeoutMs: REBUILD_TIMEOUT_MS });
        return {
          status: 200,
          body: {
            listed: count(result.listed, 'listed'),
            restored: count(result.restored, 'restored'),
            restored_reversals: count(result.restoredReversals, 'restored_reversals'),
            conversions: count(result.conversions, 'conversions'),
            attributed: count(result.attributed, 'attributed'),
          },
        };
      },
    ),
    defineRoute(
      {
        method: 'patch',
        path: '/api/v1/projects/:projectId/affiliates/:userIdentifier',
        operationId: 'updateAffiliate',
        summary: 'Change an affiliate’s name or region',
        description: 'Only the fields present change; `region: null` clears the region.',
        tags,
        auth: projectAdmin,
        query: affiliateQuery,
        body: updateAffiliateBody,
        responses: { 200: { description: 'The affiliate', schema: affiliateSchema }, 404: NOT_FOUND },
      },
      async ({ params, query, body, caller }) => {
        const affiliate = await clients.agency.updateAffiliate({
          ...target(params, query, caller),
          updateMask: Object.keys(body),
          name: body.name,
          region: body.region ?? undefined,
        });
        return { status: 200, body: presentAffiliate(affiliate) };
      },
    ),
    statusChangeRoute(
      'suspend',
      {
        operationId: 'suspendAffiliate',
        summary: 'Suspend an affiliate',
        description:
          'From now until it is reactivated, the affiliate earns nothing for conversions (attribution reads its status at each ' +
          'conversion’s moment) and its codes refer nobody (409 AFFILIATE_SUSPENDED). Users it already referred stay its referrals. ' +
          'An affiliate already suspended answers 409 AFFILIATE_ALREADY_SUSPENDED.',
        body: suspendBody,
        answer: 'The affiliate, suspended',
        conflict: 'AFFILIATE_ALREADY_SUSPENDED',
      },
      (change, reason) => clients.agency.suspendAffiliate({ ...change, reason }),
    ),
    statusChangeRoute(
      'reactivate',
      {
        operationId: 'reactivateAffiliate',
        summary: 'Reactivate a suspended affiliate',
        description:
          'It earns again for conversions from now on (not for those during the suspension). An active affiliate answers 409 AFFILIATE_NOT_SUSPENDED.',
        answer: 'The affiliate, active',
        conflict: 'AFFILIATE_NOT_SUSPENDED',
      },
      (change) => clients.agency.reactivateAffiliate(change),
    ),
    statusChangeRoute(
      'flag',
      {
        operationId: 'flagAffiliate',
        summary: 'Flag an affiliate for review',
        description:
          'An active affiliate becomes flagged: it still earns and its codes still refer, but the payouts of its conversions processed while ' +
          'it is flagged wait for an admin’s review (docs/affiliates.md). Stored with the reason, the time and the admin key, and in the ' +
          'history (flagged). Idempotent: a flagged affiliate answers 200 as it is, the first flag’s reason and time kept (unflag first ' +
          'to give another). A suspended affiliate answers 409 AFFILIATE_SUSPENDED (reactivate it first); suspending a flagged one ends its flag.',
        body: flagBody,
        answer: 'The affiliate, flagged',
        conflict: 'AFFILIATE_SUSPENDED',
      },
      (change, reason) => clients.agency.flagAffiliate({ ...change, reason }),
    ),
    statusChangeRoute(
      'unflag',
      {
        operationId: 'unflagAffiliate',
        summary: 'End an affiliate’s flag',
        description:
          'A flagged affiliate becomes active again (history: unflagged). Idempotent: an affiliate that is not flagged (active, or ' +
          'suspended) answers 200 as it is, nothing changed.',
        answer: 'The affiliate, not flagged',
      },
      (change) => clients.agency.unflagAffiliate(change),
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/affiliates/:userIdentifier/codes',
        operationId: 'addAffiliateCode',
        summary: 'Give an affiliate another referral code',
        description:
          'A code is 3 to 32 of A-Z a-z 0-9 _ - and unique in the project whatever its letter case (409 CODE_IN_USE); an affiliate ' +
          'holds at most 20 (409 CODE_LIMIT_REACHED).',
        tags,
        auth: projectAdmin,
        query: affiliateQuery,
        body: codeBody,
        responses: {
          201: { description: 'The affiliate with its codes', schema: affiliateSchema },
          404: NOT_FOUND,
          409: { description: 'CODE_IN_USE or CODE_LIMIT_REACHED' },
        },
      },
      async ({ params, query, body, caller }) => {
        const affiliate = await clients.agency.addAffiliateCode({ ...target(params, query, caller), code: body.code });
        return { status: 201, body: presentAffiliate(affiliate) };
      },
    ),
    defineRoute(
      {
        method: 'patch',
        path: '/api/v1/projects/:projectId/affiliates/:userIdentifier/codes/:code',
        operationId: 'updateAffiliateCodeRebateRate',
        summary: 'Set or clear the user rebate rate of an affiliate’s code',
        description:
          '`rebate_rate` (0 to 0.2, at most two decimals, else 400 VALIDATION_FAILED; null clears it) is the share of the affiliate’s own ' +
          'reward that goes to each user it referred through the code, from their next conversions on: what the affiliate itself sets ' +
          'with the SDK’s updateRebateRate. The code is matched whatever its letter case (404 CODE_NOT_FOUND when the affiliate holds none).',
        tags,
        auth: projectAdmin,
        query: affiliateQuery,
        body: codeRebateRateBody,
        responses: {
          200: { description: 'The affiliate with its codes', schema: affiliateSchema },
          404: { description: 'AFFILIATE_NOT_FOUND or CODE_NOT_FOUND (or PROJECT_NOT_FOUND)' },
        },
      },
      async ({ params, query, body, caller }) => {
        const affiliate = await clients.agency.setCodeRebateRate({
          ...target(params, query, caller),
          code: params.code,
          userRebateRateBps: body.rebate_rate ?? undefined,
        });
        return { status: 200, body: presentAffiliate(affiliate) };
      },
    ),
  ];
}
