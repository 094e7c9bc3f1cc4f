import type { z } from 'zod';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { presentEntry, presentSegment, presentSegmentEvaluation } from './audience.presenters';
import {
  badgeBody,
  badgeSchema,
  createSegmentBody,
  entryBatchSchema,
  entryListSchema,
  entrySchema,
  entrySearchQuery,
  waitQuery,
  listQuery,
  removeEntryQuery,
  segmentEvaluationSchema,
  segmentListSchema,
  segmentSchema,
  updateBadgeBody,
  updateSegmentBody,
  userRefBody,
} from './audience.schemas';
import { createBadge, deleteBadge, updateBadge } from './badge-handlers';
import { ENTRY_BATCH_REQUEST, getEntryBatch, listEntries, submitEntryBatch } from './entry-handlers';
import { listSegments } from './list-segments';
import { projectAdmin, projectReader } from '../route-access';

const tags = ['Audiences (dashboard)'];
/** Every endpoint of the specification's audience table (§4.1) takes a service_role key, the dashboard's add-entry included (§5.1). */
const adminOrService = { kind: 'api_key', roles: ['admin', 'service_role'], project: 'path' } as const;
const audienceIdOf = (params: { audienceId: string }) => params.audienceId;

/** A body's optional fields as the service takes them: null is unset, the condition travels as JSON text. */
function optionalSegmentFields(body: Pick<z.infer<typeof updateSegmentBody>, 'description' | 'condition' | 'tier_rank'>) {
  return {
    description: body.description ?? undefined,
    conditionJson: body.condition ? JSON.stringify(body.condition) : undefined,
    tierRank: body.tier_rank ?? undefined,
  };
}

/** Segment management under /api/v1/projects/:projectId/audiences (admin keys). */
export function audienceDashboardRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/audiences',
        operationId: 'createAudience',
        summary: 'Create an audience segment',
        description:
          'A segment with a `condition` is dynamic (its full evaluation starts at once: GET .../evaluation); without one it is static. ' +
          'A condition outside the language, too deep or too large is a 400 naming the path of each problem.',
        tags,
        auth: projectAdmin,
        body: createSegmentBody,
        responses: {
          201: { description: 'The new segment', schema: segmentSchema },
          409: { description: 'AUDIENCE_NAME_TAKEN, or TIER_RANK_TAKEN (another audience of the project has this tier rank)' },
        },
      },
      async ({ body, caller }) => {
        const segment = await clients.audience.createSegment({
          projectId: caller.projectId,
          name: body.name,
          ...optionalSegmentFields(body),
        });
        return { status: 201, body: presentSegment(segment) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/audiences',
        operationId: 'listAudiences',
        summary: 'List the project’s audience segments',
        tags,
        auth: projectReader,
        query: listQuery,
        responses: { 200: { description: 'A page of segments, oldest first', schema: segmentListSchema } },
      },
      listSegments(clients),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/audiences/:audienceId',
        operationId: 'getAudience',
        summary: 'Get one audience segment',
        tags,
        auth: projectReader,
        responses: { 200: { description: 'The segment', schema: segmentSchema } },
      },
      async ({ params, caller }) => {
        const segment = await clients.audience.getSegment({ projectId: caller.projectId, segmentId: params.audienceId });
        return { status: 200, body: presentSegment(segment) };
      },
    ),
    defineRoute(
      {
        method: 'patch',
        path: '/api/v1/projects/:projectId/audiences/:audienceId',
        operationId: 'updateAudience',
        summary: 'Change an audience segment',
        description:
          'Only the fields present in the body change; `null` clears `description`, `condition` or `tier_rank`. A body with ' +
          '`condition` starts a full evaluation (clearing it removes the dynamic entries; static ones stay).',
        tags,
        auth: projectAdmin,
        body: updateSegmentBody,
        responses: {
          200: { description: 'The updated segment', schema: segmentSchema },
          409: { description: 'AUDIENCE_NAME_TAKEN, or TIER_RANK_TAKEN (another audience of the project has this tier rank)' },
        },
      },
      async ({ params, body, caller }) => {
        const mask = [
          ...('name' in body ? ['name'] : []),
          ...('description' in body ? ['description'] : []),
          ...('condition' in body ? ['condition_json'] : []),
          ...('tier_rank' in body ? ['tier_rank'] : []),
        ];
        const segment = await clients.audience.updateSegment({
          projectId: caller.projectId,
          segmentId: params.audienceId,
          updateMask: mask,
          name: body.name,
          ...optionalSegmentFields(body),
        });
        return { status: 200, body: presentSegment(segment) };
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/api/v1/projects/:projectId/audiences/:audienceId',
        operationId: 'deleteAudience',
        summary: 'Delete an audience segment with its entries and badge',
        tags,
        auth: projectAdmin,
        responses: { 204: { description: 'Deleted' } },
      },
      async ({ params, caller }) => {
        await clients.audience.deleteSegment({ projectId: caller.projectId, segmentId: params.audienceId });
        return { status: 204 };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/audiences/:audienceId/evaluate',
        operationId: 'evaluateAudience',
        summary: 'Start a full evaluation of a dynamic audience',
        description:
          'Matches every user of the project against the condition: users that match enter as dynamic entries, dynamic entries of ' +
          'users that no longer match leave; static entries are never touched. Runs on a worker, one evaluation per audience at a ' +
          'time (a request while one runs is evaluated after it). An audience without a condition: 400 AUDIENCE_NOT_DYNAMIC.',
        tags,
        auth: projectAdmin,
        responses: { 202: { description: 'The evaluation, queued', schema: segmentEvaluationSchema } },
      },
      async ({ params, caller }) => {
        const evaluation = await clients.audience.evaluateSegment({ projectId: caller.projectId, segmentId: params.audienceId });
        return { status: 202, body: presentSegmentEvaluation(evaluation) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/audiences/:audienceId/evaluation',
        operationId: 'getAudienceEvaluation',
        summary: 'The latest full evaluation of a dynamic audience',
        tags,
        auth: projectReader,
        responses: {
          200: { description: 'The evaluation', schema: segmentEvaluationSchema },
          404: { description: 'EVALUATION_NOT_FOUND: the audience was never evaluated (it has no condition)' },
        },
      },
      async ({ params, caller }) => {
        const evaluation = await clients.audience.getSegmentEvaluation({ projectId: caller.projectId, segmentId: params.audienceId });
        return { status: 200, body: presentSegmentEvaluation(evaluation) };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/audiences/:audienceId/entries',
        operationId: 'addAudienceEntry',
        summary: 'Add one user to an audience (dashboard)',
        description:
          'Unlike the batch endpoint, a user already in the audience is a conflict: 409 AUDIENCE_ENTRY_EXISTS. Takes an admin key (the ' +
          'dashboard) or a service_role key (a project’s backend), as every audience endpoint of the specification does; either way the ' +
          'entry is static with `source: "dashboard"` (the endpoint it came through).',
        tags,
        auth: adminOrService,
        body: userRefBody,
        responses: {
          201: { description: 'The new entry', schema: entrySchema },
          409: { description: 'AUDIENCE_ENTRY_EXISTS: the user is already in this audience' },
        },
      },
      async ({ params, body, caller }) => {
        const entry = await clients.audience.addEntry({
          projectId: caller.projectId,
          segmentId: params.audienceId,
          user: { identifier: body.identifier, identifierType: body.identifier_type },
        });
        return { status: 201, body: presentEntry(entry) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/audiences/:audienceId/entries',
        operationId: 'listAudienceEntriesDashboard',
        summary: 'List an audience’s entries, newest first, with a search (dashboard)',
        description:
          'The /v1 entry list for admin and read_only keys, plus `search`: only users whose identifier starts with it. ' +
          'Page with `page`/`page_size`, or walk by passing back `next_cursor` as `cursor`.',
        tags,
        auth: projectReader,
        query: entrySearchQuery,
        responses: { 200: { description: 'A page of entries', schema: entryListSchema } },
      },
      listEntries(clients, (params: { audienceId: string }) => params.audienceId),
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/api/v1/projects/:projectId/audiences/:audienceId/entries/:userIdentifier',
        operationId: 'removeAudienceEntryDashboard',
        summary: 'Remove a user from an audience (dashboard)',
        description:
          'The /v1 removal for admin keys, with the same rules: without `user_identifier_type` the identifier is removed under every type ' +
          'it is valid for; 404 AUDIENCE_ENTRY_NOT_FOUND when the user is not in the audience. A dynamic entry of a user who still ' +
          'matches the condition comes back at the next evaluation.',
        tags,
        auth: projectAdmin,
        query: removeEntryQuery,
        responses: { 204: { description: 'Removed' } },
      },
      async ({ params, query, caller }) => {
        await clients.audience.removeEntry({
          projectId: caller.projectId,
          segmentId: params.audienceId,
          identifier: params.userIdentifier,
          identifierType: query.user_identifier_type,
        });
        return { status: 204 };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/audiences/:audienceId/entries/batch',
        operationId: 'addAudienceEntriesBatchDashboard',
        summary: 'Add up to 10,000 users to an audience (dashboard: CSV upload)',
        description:
          'The /v1 batch for admin keys, with the same rules: the whole batch is validated first (400 naming each index, nothing written); ' +
          'users already present and repeats are skipped and counted in `skipped`; 202 with a job to poll, or with `?wait=true` 200 once ' +
          'it has finished; a retry with the same `Idempotency-Key` returns the same job and adds nothing twice.',
        tags,
        auth: projectAdmin,
        ...ENTRY_BATCH_REQUEST,
      },
      submitEntryBatch(clients, (params: { audienceId: string }) => params.audienceId),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/audiences/:audienceId/entries/batch/:jobId',
        operationId: 'getAudienceEntriesBatchDashboard',
        summary: 'The status of a batch job (dashboard)',
        tags,
        auth: projectReader,
        query: waitQuery,
        responses: { 200: { description: 'The job', schema: entryBatchSchema } },
      },
      getEntryBatch(clients, (params: { audienceId: string; jobId: string }) => params.audienceId),
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/audiences/:audienceId/badge',
        operationId: 'createAudienceBadgeDashboard',
        summary: 'Give an audience its badge (dashboard: badge editor)',
        description: 'The /v1 badge for admin keys, with the same rules: one badge per audience, `image_url` an https URL.',
        tags,
        auth: projectAdmin,
        body: badgeBody,
        responses: {
          201: { description: 'The badge', schema: badgeSchema },
          409: { description: 'BADGE_EXISTS: the audience already has a badge' },
        },
      },
      createBadge(clients, audienceIdOf),
    ),
    defineRoute(
      {
        method: 'patch',
        path: '/api/v1/projects/:projectId/audiences/:audienceId/badge',
        operationId: 'updateAudienceBadgeDashboard',
        summary: 'Change an audience’s badge (dashboard: badge editor)',
        description: 'Only the fields present change; `null` clears `description` or `image_url`. 404 when the audience has no badge.',
        tags,
        auth: projectAdmin,
        body: updateBadgeBody,
        responses: { 200: { description: 'The badge', schema: badgeSchema } },
      },
      updateBadge(clients, audienceIdOf),
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/api/v1/projects/:projectId/audiences/:audienceId/badge',
        operationId: 'deleteAudienceBadgeDashboard',
        summary: 'Remove an audience’s badge (dashboard: badge editor)',
        tags,
        auth: projectAdmin,
        responses: { 204: { description: 'Removed' } },
      },
      deleteBadge(clients, audienceIdOf),
    ),
  ];
}
