import { ReviewRule, ReviewStatus } from '../../../gen/referral/claim/v1/enums';
import { enumValue } from '../../../services/rules/enums';
import { HttpError } from '../../http/errors';
import { listBody, pageRequest } from '../../http/list';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { projectAdmin } from '../route-access';
import { presentConversionReview, presentReviewSettings } from './review.presenters';
import { conversionReviewListQuery, conversionReviewListSchema, reviewSettingsBody, reviewSettingsSchema } from './review.schemas';

const tags = ['Review'];

/** The project's review rules and the conversions they flagged (admin; docs/claims.md#review-rules). */
export function reviewRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/review-settings',
        operationId: 'getReviewSettings',
        summary: 'The project’s review rules',
        description: 'Each limit, or null while its rule is off; every rule is off (and updated_at null) until the settings are first changed.',
        tags,
        auth: projectAdmin,
        responses: { 200: { description: 'The review settings', schema: reviewSettingsSchema }, 404: { description: 'No such project' } },
      },
      async ({ params }) => ({ status: 200, body: presentReviewSettings(await clients.claim.getReviewSettings({ projectId: params.projectId })) }),
    ),
    defineRoute(
      {
        method: 'patch',
        path: '/api/v1/projects/:projectId/review-settings',
        operationId: 'updateReviewSettings',
        summary: 'Changes the project’s review rules',
        description:
          'A field left out keeps its value; null turns its rule off; a value sets the limit. Every field is checked before anything ' +
          'changes (400 VALIDATION_FAILED naming each bad one, or AMOUNT_OUT_OF_RANGE for a reward past 2^256 − 1). The rules apply to ' +
          'conversions paid after the change; conversions already flagged keep the figures they were flagged with. Answers the settings ' +
          'as they stand after the change; the same body again changes nothing but updated_at.',
        tags,
        auth: projectAdmin,
        body: reviewSettingsBody,
        responses: { 200: { description: 'The review settings', schema: reviewSettingsSchema }, 404: { description: 'No such project' } },
      },
      async ({ params, body }) => ({
        status: 200,
        body: presentReviewSettings(
          await clients.claim.updateReviewSettings({
            projectId: params.projectId,
            updateMask: Object.keys(body),
            maxConversionsPerUserPerHour: body.max_conversions_per_user_per_hour ?? undefined,
            minSecondsFromReferralToConversion: body.min_seconds_from_referral_to_conversion ?? undefined,
            maxRewardPerConversion: body.max_reward_per_conversion ?? undefined,
          }),
        ),
      }),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/review',
        operationId: 'listConversionReviews',
        summary: 'The conversions the review rules flagged, newest first',
        description:
          'Each with the rules it broke and their figures (limit and actual, decimal strings), when it was flagged, and whether it ' +
          'was decided (approved or declined). Newest flagged first (ties by conversion id, descending). The filters combine: `rule`, ' +
          '`status` (open or decided), and the converting user (`user_identifier`, with `user_identifier_type`, evm_address when left out).',
        tags,
        auth: projectAdmin,
        query: conversionReviewListQuery,
        responses: {
          200: { description: 'A page of flagged conversions', schema: conversionReviewListSchema },
          404: { description: 'No such project' },
        },
      },
      async ({ params, query }) => {
        if (query.user_identifier_type !== undefined && query.user_identifier === undefined) {
          throw new HttpError(400, 'VALIDATION_FAILED', 'user_identifier_type: names the type of user_identifier, which is missing', [
            { field: 'user_identifier_type', reason: 'only with user_identifier' },
          ]);
        }
        const page = await clients.claim.listConversionReviews({
          projectId: params.projectId,
          rule: query.rule === undefined ? ReviewRule.UNSPECIFIED : enumValue(ReviewRule, query.rule),
          status: query.status === undefined ? ReviewStatus.UNSPECIFIED : enumValue(ReviewStatus, query.status),
          user:
            query.user_identifier === undefined
              ? undefined
              : { identifier: query.user_identifier, identifierType: query.user_identifier_type ?? 'evm_address' },
          page: pageRequest(query),
        });
        return { status: 200, body: listBody(page, presentConversionReview) };
      },
    ),
  ];
}
