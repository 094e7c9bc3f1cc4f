import { ApplicationAction, ApplicationStatus } from '../../../gen/referral/agency/v1/enums';
import { APPLICATION_LIMITS } from '../../../services/rules/contract-limits';
import { enumValue, optionalEnumValue } from '../../../services/rules/enums';
import type { CallerFor } from '../../auth/caller';
import { listBody, pageRequest } from '../../http/list';
import { required } from '../../http/present';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { presentOwnAffiliate } from './agency.presenters';
import { presentApplication, presentDecisionResult } from './programs.presenters';
import {
  applicationBody,
  applicationListQuery,
  applicationListSchema,
  applicationSchema,
  approveBody,
  bulkBody,
  bulkResultSchema,
  holdBody,
  ownApplicationSchema,
  rejectBody,
} from './programs.schemas';
import { projectAdmin, projectReader, walletSession } from '../route-access';

const adminTags = ['Applications'];
const portalTags = ['Affiliate portal'];

const NOT_FOUND = { description: 'APPLICATION_NOT_FOUND (or PROJECT_NOT_FOUND)' };
const TRANSITIONS =
  'Transitions: pending -> approved | rejected | on_hold; on_hold -> approved | rejected. Approved and rejected are final ' +
  '(409 APPLICATION_DECIDED); holding one already on hold answers 409 APPLICATION_ON_HOLD.';

/** A decision on one application, as the service takes it. */
function decision(
  caller: CallerFor<typeof projectAdmin>,
  applicationId: string,
  action: ApplicationAction,
  fields: { audienceId?: string; reason?: string; note?: string },
) {
  return { projectId: caller.projectId, applicationId, action, ...fields, actor: { apiKeyId: caller.keyId } };
}

/**
 * Affiliate applications (§2.10, §3.2): the wallet applies from the portal (session token); admins
 * review under /api/v1/projects/:projectId/applications (read_only may read).
 */
export function applicationRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/affiliate-portal/application',
        operationId: 'submitApplication',
        summary: 'Apply to become an affiliate of the project (the signed-in wallet)',
        description:
          'The application is `pending` until an admin decides. One open (pending or on hold) application per wallet: another ' +
          'answers 409 APPLICATION_OPEN; a wallet that is already an affiliate answers 409 AFFILIATE_EXISTS. After a rejection the ' +
          'wallet may apply again (the rejected application is kept).',
        tags: portalTags,
        auth: walletSession,
        body: applicationBody,
        responses: {
          201: { description: 'The application', schema: applicationSchema },
          409: { description: 'APPLICATION_OPEN or AFFILIATE_EXISTS' },
        },
      },
      async ({ body, caller }) => {
        const application = await clients.agency.submitApplication({
          projectId: caller.projectId,
          user: { identifier: caller.address, identifierType: 'evm_address' },
          name: body.name,
          region: body.region ?? undefined,
          message: body.message ?? undefined,
          code: body.code ?? undefined,
        });
        return { status: 201, body: presentApplication(application) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/affiliate-portal/application',
        operationId: 'getOwnApplication',
        summary: 'The signed-in wallet’s latest application and, once approved, its affiliate',
        description: '404 APPLICATION_NOT_FOUND when the wallet has not applied.',
        tags: portalTags,
        auth: walletSession,
        responses: { 200: { description: 'The latest application', schema: ownApplicationSchema } },
      },
      async ({ caller }) => {
        const own = await clients.agency.getOwnApplication({
          projectId: caller.projectId,
          user: { identifier: caller.address, identifierType: 'evm_address' },
        });
        return {
          status: 200,
          body: {
            ...presentApplication(required(own.application, 'application')),
            affiliate: own.affiliate ? presentOwnAffiliate(own.affiliate) : null,
          },
        };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/applications',
        operationId: 'listApplications',
        summary: 'The project’s applications, oldest first (the review queue); `?status=pending` for those waiting',
        tags: adminTags,
        auth: projectReader,
        query: applicationListQuery,
        responses: { 200: { description: 'A page of applications', schema: applicationListSchema } },
      },
      async ({ query, caller }) => {
        const page = await clients.agency.listApplications({
          projectId: caller.projectId,
          status: optionalEnumValue(ApplicationStatus, query.status),
          page: pageRequest(query),
        });
        return { status: 200, body: listBody(page, presentApplication) };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/applications/bulk',
        operationId: 'bulkDecideApplications',
        summary: 'Approve, reject or hold many applications at once',
        description:
          `Up to ${APPLICATION_LIMITS.maxBulkIds} ids (413 TOO_MANY_APPLICATIONS). The decision is checked once (approve needs ` +
          '`audience_id`, a static segment of the project; reject needs `reason`) and refuses the whole request when it is wrong. ' +
          'Then each application is decided alone, in the order given: one answer per id, `ok` with the application, or its own ' +
          `error (e.g. APPLICATION_DECIDED, APPLICATION_NOT_FOUND) while the others go on. ${TRANSITIONS}`,
        tags: adminTags,
        auth: projectAdmin,
        body: bulkBody,
        arrayLimit: { field: 'application_ids', max: APPLICATION_LIMITS.maxBulkIds, code: 'TOO_MANY_APPLICATIONS' },
        responses: {
          200: { description: 'One result per id', schema: bulkResultSchema },
          404: { description: 'AUDIENCE_NOT_FOUND: no segment of the project has this audience_id' },
        },
      },
      async ({ body, caller }) => {
        const response = await clients.agency.bulkDecideApplications({
          projectId: caller.projectId,
          applicationIds: body.application_ids,
          action: enumValue(ApplicationAction, body.action),
          audienceId: body.audience_id,
          reason: body.reason,
          note: body.note,
          actor: { apiKeyId: caller.keyId },
        });
        return { status: 200, body: { results: response.results.map(presentDecisionResult) } };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/applications/:applicationId',
        operationId: 'getApplication',
        summary: 'One application',
        tags: adminTags,
        auth: projectReader,
        responses: { 200: { description: 'The application', schema: applicationSchema }, 404: NOT_FOUND },
      },
      async ({ params, caller }) => ({
        status: 200,
        body: presentApplication(await clients.agency.getApplication({ projectId: caller.projectId, applicationId: params.applicationId })),
      }),
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/applications/:applicationId/approve',
        operationId: 'approveApplication',
        summary: 'Approve an application: the user becomes an active affiliate and joins a static audience',
        description:
          '`audience_id` must be a static segment of the project (400 AUDIENCE_NOT_STATIC for a dynamic one, 404 AUDIENCE_NOT_FOUND ' +
          'otherwise; checked with the audience service, 503 AUDIENCE_UNAVAILABLE and nothing changed when it cannot answer). The ' +
          'application, the affiliate (created, or reactivated; with the desired code when it is free: `granted_code`) and the event ' +
          'that adds the user to the audience commit together; the audience entry follows within moments, and exactly once, even ' +
          `across crashes and outages. ${TRANSITIONS}`,
        tags: adminTags,
        auth: projectAdmin,
        body: approveBody,
        responses: {
          200: { description: 'The application, approved', schema: applicationSchema },
          404: { description: 'APPLICATION_NOT_FOUND or AUDIENCE_NOT_FOUND' },
          409: { description: 'APPLICATION_DECIDED' },
        },
      },
      async ({ params, body, caller }) => {
        const application = await clients.agency.decideApplication(
          decision(caller, params.applicationId, ApplicationAction.APPROVE, { audienceId: body.audience_id }),
        );
        return { status: 200, body: presentApplication(application) };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/applications/:applicationId/reject',
        operationId: 'rejectApplication',
        summary: 'Reject an application, with a reason',
        description: `The user may apply again. ${TRANSITIONS}`,
        tags: adminTags,
        auth: projectAdmin,
        body: rejectBody,
        responses: {
          200: { description: 'The application, rejected', schema: applicationSchema },
          404: NOT_FOUND,
          409: { description: 'APPLICATION_DECIDED' },
        },
      },
      async ({ params, body, caller }) => {
        const application = await clients.agency.decideApplication(
          decision(caller, params.applicationId, ApplicationAction.REJECT, { reason: body.reason }),
        );
        return { status: 200, body: presentApplication(application) };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/applications/:applicationId/hold',
        operationId: 'holdApplication',
        summary: 'Keep an application for later review, with an optional note',
        description: TRANSITIONS,
        tags: adminTags,
        auth: projectAdmin,
        body: holdBody,
        responses: {
          200: { description: 'The application, on hold', schema: applicationSchema },
          404: NOT_FOUND,
          409: { description: 'APPLICATION_DECIDED or APPLICATION_ON_HOLD' },
        },
      },
      async ({ params, body, caller }) => {
        const application = await clients.agency.decideApplication(
          decision(caller, params.applicationId, ApplicationAction.HOLD, { note: body.note }),
        );
        return { status: 200, body: presentApplication(application) };
      },
    ),
  ];
}
