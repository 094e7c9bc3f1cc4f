import type { ConversionInput } from '../../../gen/referral/claim/v1/claim';
import { MAX_CONVERSIONS_PER_BATCH } from '../../../services/rules/contract-limits';
import { ConversionStatus } from '../../../gen/referral/claim/v1/enums';
import { enumValue } from '../../../services/rules/enums';
import { HttpError, zodDetails } from '../../http/errors';
import { inputError } from '../../http/input-messages';
import { listBody, pageRequest } from '../../http/list';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { presentConversion, presentSubmission, summarise, toConversionInput } from './claim.presenters';
import {
  acceptedSchema,
  batchResultSchema,
  conversionBatchBody,
  conversionBody,
  conversionListQuery,
  conversionListSchema,
  conversionSchema,
} from './claim.schemas';
import { anyProjectKey, projectReader, serviceRole } from '../route-access';

const tags = ['Conversions'];

type BatchItem = ReturnType<typeof presentSubmission>;

/** One item of a batch, read alone: the gRPC conversion, or why it is refused (fields named `conversions[i].…`). */
function readItem(item: unknown, index: number): { input: ConversionInput } | { refused: BatchItem } {
  const parsed = conversionBody.safeParse(item, { error: inputError });
  if (parsed.success) return { input: toConversionInput(parsed.data) };
  const details = zodDetails(parsed.error, `conversions[${index}]`);
  const id = typeof (item as { id?: unknown } | null)?.id === 'string' ? (item as { id: string }).id || null : null;
  return {
    refused: {
      id,
      outcome: 'refused',
      status: null,
      error: { status: 400, code: 'VALIDATION_FAILED', message: summarise(details), details },
    },
  };
}

/** Conversions a project's backend reports (service_role keys), which the job pays; and the project's list of them (admin). */
export function conversionRoutes({ clients, access }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/conversions',
        operationId: 'submitConversion',
        summary: 'Report a conversion',
        description:
          'Stored at once and paid by a job: its attribution (who referred the user, frozen on it), movements, claim checks and ' +
          'leaderboard totals. `id` is your deduplication key: the same id with the same body again answers 200 and stores nothing ' +
          'twice (status: where the conversion stands); with another body, 409 CONVERSION_ID_REUSED. A failed conversion sent again ' +
          'with the same body is accepted anew.',
        tags,
        auth: serviceRole,
        body: conversionBody,
        responses: {
          200: { description: 'Sent before with the same body: nothing was stored twice', schema: acceptedSchema },
          202: { description: 'Stored; the job pays it', schema: acceptedSchema },
          400: {
            description:
              'VALIDATION_FAILED (every problem listed), or, when that is the only problem: AMOUNT_OUT_OF_RANGE (reward_base past ' +
              '2^256 − 1) or OCCURRED_AT_OUT_OF_RANGE (occurred_at before the project’s creation less CONVERSION_BACKFILL_DAYS, 365 ' +
              'days by default, or more than 5 minutes in the future; the message names the bound)',
          },
          409: { description: 'CONVERSION_ID_REUSED: another conversion was sent with this id' },
        },
      },
      async ({ body, caller }) => {
        const projectCreatedAt = await access.projectCreatedAt(caller.projectId);
        const result = presentSubmission(
          await clients.claim.submitConversion({ projectId: caller.projectId, conversion: toConversionInput(body), projectCreatedAt }),
        );
        const status = result.status ?? 'accepted';
        return result.outcome === 'accepted' ? { status: 202, body: { id: body.id, status } } : { status: 200, body: { id: body.id, status } };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/conversions/batch',
        operationId: 'submitConversionsBatch',
        summary: `Report up to ${MAX_CONVERSIONS_PER_BATCH.toLocaleString('en-US')} conversions`,
        description:
          'Each conversion is checked, deduplicated and stored alone, exactly as POST /api/v1/conversions would: the answer lists one ' +
          'result per conversion, in order, and a refused one (with the error it alone would get) does not refuse the others. ' +
          '202 when at least one conversion was stored now, else 200. More than 1,000 conversions answer 413 BATCH_TOO_LARGE.',
        tags,
        auth: serviceRole,
        body: conversionBatchBody,
        bodyLimit: 'batch',
        arrayLimit: { field: 'conversions', max: MAX_CONVERSIONS_PER_BATCH, code: 'BATCH_TOO_LARGE' },
        responses: {
          200: { description: 'Nothing new was stored (every conversion a duplicate or refused)', schema: batchResultSchema },
          202: { description: 'Some conversions were stored; the job pays them', schema: batchResultSchema },
        },
      },
      async ({ body, caller }) => {
        const read = body.conversions.map(readItem);
        const inputs = read.flatMap((item) => ('input' in item ? [item.input] : []));
        const projectCreatedAt = inputs.length === 0 ? undefined : await access.projectCreatedAt(caller.projectId);
        const answered =
          inputs.length === 0
            ? []
            : (await clients.claim.submitConversions({ projectId: caller.projectId, conversions: inputs, projectCreatedAt })).results;
        if (answered.length !== inputs.length) throw new Error(`the claim service answered ${answered.length} of ${inputs.length} conversions`);
        let next = 0;
        const results = read.map((item, index) => ('refused' in item ? item.refused : presentSubmission(answered[next++]!, `conversions[${index}]`)));
        const tally = (outcome: BatchItem['outcome']) => results.filter((result) => result.outcome === outcome).length;
        const accepted = tally('accepted');
        const summary = { results, accepted, duplicates: tally('duplicate'), refused: tally('refused') };
        return accepted > 0 ? { status: 202, body: summary } : { status: 200, body: summary };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/conversions',
        operationId: 'listConversions',
        summary: 'The project’s conversions, newest first, with their status and movements',
        description:
          'Newest received first (ties by id, descending); each item is what GET /api/v1/conversions/{conversionId} answers. ' +
          'The filters combine: `status`, `name` (exact), and the converting user (`user_identifier`, with `user_identifier_type`, ' +
          'evm_address when left out).',
        tags,
        auth: projectReader,
        query: conversionListQuery,
        responses: { 200: { description: 'A page of conversions', schema: conversionListSchema } },
      },
      async ({ query, caller }) => {
        if (query.user_identifier_type !== undefined && query.user_identifier === undefined) {
          throw new HttpError(400, 'VALIDATION_FAILED', 'user_identifier_type: names the type of user_identifier, which is missing', [
            { field: 'user_identifier_type', reason: 'only with user_identifier' },
          ]);
        }
        const user =
          query.user_identifier === undefined
            ? undefined
            : { identifier: query.user_identifier, identifierType: query.user_identifier_type ?? 'evm_address' };
        const page = await clients.claim.listConversions({
          projectId: caller.projectId,
          status: query.status === undefined ? ConversionStatus.UNSPECIFIED : enumValue(ConversionStatus, query.status),
          name: query.name,
          user,
          page: pageRequest(query),
        });
        return { status: 200, body: listBody(page, (conversion) => presentConversion(conversion)) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/conversions/:conversionId',
        operationId: 'getConversion',
        summary: 'A conversion: where it stands, who it was attributed to, and its movements',
        description:
          'Any key of the project reads it (service_role, admin or read_only), as the project’s conversion list does for admin and ' +
          'read_only keys; a conversion of another project is a 404. ' +
          'Once processed, `rewards` says per side (`end_user`, `affiliate` when someone referred the user, `master` when that affiliate ' +
          'has one) `status: "paid"` or `"not_eligible"`, with `allowlist_audience_id`, the audience the side was checked against (null ' +
          'when its payout terms named no allowlist) and `amount`, what its movements of that kind pay. not_eligible: the user was not a ' +
          'member of that audience (static or dynamic entry) when the conversion was processed, so that side was paid nothing; the ' +
          'master’s spread follows its affiliate’s eligibility. Frozen with the attribution: later changes of membership, terms or ' +
          'audiences rewrite nothing. `rewards` is null for a conversion that is accepted, failed or no_terms. `reversals`: what ' +
          'POST /api/v1/conversions/{conversionId}/reverse took back, oldest first.',
        tags,
        auth: anyProjectKey,
        responses: {
          200: { description: 'The conversion', schema: conversionSchema },
          404: { description: 'CONVERSION_NOT_FOUND' },
        },
      },
      async ({ params, caller }) => {
        const conversion = await clients.claim.getConversion({ projectId: caller.projectId, id: params.conversionId });
        return { status: 200, body: presentConversion(conversion, true) };
      },
    ),
  ];
}
