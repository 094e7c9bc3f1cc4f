import { required } from '../../http/present';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { serviceOrAdmin } from '../route-access';
import { presentReversal } from './claim.presenters';
import { reversalSchema, reverseConversionBody } from './claim.schemas';

const tags = ['Conversions'];

/** Reversals: a refunded or unwound conversion takes back a share of what it paid (docs/claims.md#reversals). */
export function reversalRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/conversions/:conversionId/reverse',
        operationId: 'reverseConversion',
        summary: 'Reverse a share of a processed conversion (a refund, an unwound trade)',
        description:
          'Takes back `share_bps` of every movement of the conversion, floor(amount × share_bps / 10000) each, as new rows (nothing ' +
          'written before changes), and the same share of its volume and revenue from every figure (affiliate metrics, leaderboards, ' +
          'master volumes). Where the money is decides what happens: pending -> the movement becomes available net of it; in an open ' +
          'claim check -> the check shrinks; in a closed (voucher out), claimed or expired check -> the amount becomes the user’s debt in ' +
          'that currency and kind, paid first out of what the user earns next. A declined movement gives nothing back. The same ' +
          '`reversal_id` and body again answer 200 with the first reversal and take nothing twice; another body under that id is a 409 ' +
          'REVERSAL_ID_REUSED; the shares of one conversion add up to at most 10000 (409 REVERSAL_SHARE_EXCEEDED). Sends ' +
          '`conversion.reversed` to webhooks. Service-role keys (your backend) and admin keys (the dashboard).',
        tags,
        auth: serviceOrAdmin,
        body: reverseConversionBody,
        responses: {
          200: { description: 'Reversed before with the same body: nothing was taken twice', schema: reversalSchema },
          201: { description: 'Reversed now', schema: reversalSchema },
          400: { description: 'VALIDATION_FAILED' },
          404: { description: 'CONVERSION_NOT_FOUND' },
          409: {
            description:
              'REVERSAL_ID_REUSED (another body under this reversal_id), REVERSAL_SHARE_EXCEEDED (the conversion’s shares would pass ' +
              '10000), or CONVERSION_NOT_PROCESSED (accepted and not paid yet, or failed: nothing to reverse)',
          },
        },
      },
      async ({ params, body, caller }) => {
        const { reversal, replayed } = await clients.claim.reverseConversion({
          projectId: caller.projectId,
          conversionId: params.conversionId,
          reversalId: body.reversal_id,
          reason: body.reason,
          shareBps: body.share_bps,
          reversedBy: caller.keyId,
        });
        return { status: replayed ? 200 : 201, body: presentReversal(required(reversal, 'reversal')) };
      },
    ),
  ];
}
