import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { presentUserAudience } from './audience.presenters';
import { createBadge, deleteBadge, updateBadge } from './badge-handlers';
import {
  badgeBody,
  badgeSchema,
  entriesQuery,
  entryBatchSchema,
  entryListSchema,
  listQuery,
  lookupQuery,
  removeEntryQuery,
  segmentListSchema,
  updateBadgeBody,
  userAudiencesSchema,
  waitQuery,
} from './audience.schemas';
import { ENTRY_BATCH_REQUEST, getEntryBatch, listEntries, submitEntryBatch } from './entry-handlers';
import { listSegments } from './list-segments';
import { serviceReader, serviceRole } from '../route-access';

const tags = ['Audiences'];
const segmentIdOf = (params: { segmentId: string }) => params.segmentId;

/** The server-to-server audience API under /v1 (service_role keys). */
export function audienceSegmentRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/v1/audiences/audience-segments',
        operationId: 'listAudienceSegments',
        summary: 'List the project’s audience segments',
        tags,
        auth: serviceReader,
        query: listQuery,
        responses: { 200: { description: 'A page of segments, oldest first', schema: segmentListSchema } },
      },
      listSegments(clients),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/v1/audiences/audience-segments/user',
        operationId: 'getUserAudiences',
        summary: 'The audiences a user belongs to, with their badges',
        description: 'A user in no audience gets `{ "results": [] }`. An evm_address matches in any letter case.',
        tags,
        auth: serviceReader,
        query: lookupQuery,
        responses: { 200: { description: 'The user’s audiences', schema: userAudiencesSchema } },
      },
      async ({ query, caller }) => {
        const audiences = await clients.userAudiences.load({
          projectId: caller.projectId,
          identifier: query.user_identifier,
          identifierType: query.user_identifier_type,
        });
        return { status: 200, body: { results: audiences.map(presentUserAudience) } };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/v1/audience-segments/:segmentId/entries',
        operationId: 'listAudienceEntries',
        summary: 'List a segment’s entries, newest first',
        description: 'Page with `page`/`page_size`, or walk the whole segment by passing back `next_cursor` as `cursor`.',
        tags,
        auth: serviceReader,
        query: entriesQuery,
        responses: { 200: { description: 'A page of entries', schema: entryListSchema } },
      },
      listEntries(clients, (params: { segmentId: string }) => params.segmentId),
    ),
    defineRoute(
      {
        method: 'post',
        path: '/v1/audience-segments/:segmentId/entries/batch',
        operationId: 'addAudienceEntriesBatch',
        summary: 'Add up to 10,000 users to a segment',
        description:
          'The whole batch is validated first: one invalid entry refuses the batch (400, `details` names each index) and nothing is written. ' +
          'Users already in the segment, and repeats inside the batch, are skipped silently and counted in `skipped`. ' +
          'The batch is applied by a worker: the answer is 202 with a job to poll, or with `?wait=true` 200 once the job has finished (up to 30 s). ' +
          'A retry with the same `Idempotency-Key` returns the same job and adds nothing twice.',
        tags,
        auth: serviceRole,
        ...ENTRY_BATCH_REQUEST,
      },
      submitEntryBatch(clients, (params: { segmentId: string }) => params.segmentId),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/v1/audience-segments/:segmentId/entries/batch/:jobId',
        operationId: 'getAudienceEntriesBatch',
        summary: 'The status of a batch job',
        tags,
        auth: serviceReader,
        query: waitQuery,
        responses: { 200: { description: 'The job', schema: entryBatchSchema } },
      },
      getEntryBatch(clients, (params: { segmentId: string; jobId: string }) => params.segmentId),
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/v1/audience-segments/:segmentId/entries/:userIdentifier',
        operationId: 'removeAudienceEntry',
        summary: 'Remove a user from a segment',
        description: 'Without `user_identifier_type`, the identifier is removed under every type it is valid for.',
        tags,
        auth: serviceRole,
        query: removeEntryQuery,
        responses: { 204: { description: 'Removed' } },
      },
      async ({ params, query, caller }) => {
        await clients.audience.removeEntry({
          projectId: caller.projectId,
          segmentId: params.segmentId,
          identifier: params.userIdentifier,
          identifierType: query.user_identifier_type,
        });
        return { status: 204 };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/v1/audience-segments/:segmentId/badge',
        operationId: 'createAudienceBadge',
        summary: 'Give a segment its badge',
        tags,
        auth: serviceRole,
        body: badgeBody,
        responses: {
          201: { description: 'The badge', schema: badgeSchema },
          409: { description: 'BADGE_EXISTS: the segment already has a badge' },
        },
      },
      createBadge(clients, segmentIdOf),
    ),
    defineRoute(
      {
        method: 'patch',
        path: '/v1/audience-segments/:segmentId/badge',
        operationId: 'updateAudienceBadge',
        summary: 'Change a segment’s badge',
        description: 'Only the fields present change; `null` clears `description` or `image_url`. 404 when the segment has no badge.',
        tags,
        auth: serviceRole,
        body: updateBadgeBody,
        responses: { 200: { description: 'The badge', schema: badgeSchema } },
      },
      updateBadge(clients, segmentIdOf),
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/v1/audience-segments/:segmentId/badge',
        operationId: 'deleteAudienceBadge',
        summary: 'Remove a segment’s badge',
        tags,
        auth: serviceRole,
        responses: { 204: { description: 'Removed' } },
      },
      deleteBadge(clients, segmentIdOf),
    ),
  ];
}
