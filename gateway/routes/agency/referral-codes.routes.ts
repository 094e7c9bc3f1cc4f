import { HttpError } from '../../http/errors';
import { pageRequest } from '../../http/list';
import { type AnyRoute, defineRoute } from '../../http/route';
import { requireWalletProof } from '../../auth/wallet-signatures';
import type { RouteDeps } from '../route-deps';
import { anyProjectKey, serviceOrAdmin } from '../route-access';
import { presentInviteCodePage, presentReferralStatus, presentUpdatedCode } from './referral-codes.presenters';
import {
  codeAvailabilitySchema,
  endReferralBody,
  endReferralQuery,
  generateCodesQuery,
  generatedCodesSchema,
  inviteCodePageSchema,
  listCodesQuery,
  referralStatusSchema,
  updateCodeBody,
  updatedCodeSchema,
} from './referral-codes.schemas';
import { userQuery } from './agency.schemas';
import { namesCode } from './sdk.routes';

const tags = ['Invite codes (@fuul/sdk)'];

/**
 * The @fuul/sdk's ReferralCodeService (`/referral_codes`, docs/affiliates.md#invite-codes): invite codes
 * generated for an affiliate, each with a number of uses, and the referral status of a user.
 * useReferralCode (PATCH /referral_codes/:code/use) is in sdk.routes.ts and takes both kinds of code.
 */
export function referralCodeRoutes({ clients, signatures }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/referral_codes',
        operationId: 'generateReferralCodesSdk',
        summary: 'Generates invite codes for an affiliate (Fuul.generateReferralCodes)',
        description:
          'The codes belong to the user, who must be an affiliate of the key’s project (404 AFFILIATE_NOT_FOUND): a user referred ' +
          'through one is referred by that affiliate. Each code is 8 characters of 23456789ABCDEFGHJKMNPQRSTUVWXYZ from a CSPRNG, unique ' +
          'in the project with the affiliate codes whatever the letter case. `max_uses` left out: unlimited; 0: disabled. An affiliate ' +
          'holds at most 1,000 invite codes (409 CODE_LIMIT_REACHED, nothing generated). A retry generates new codes.',
        tags,
        auth: serviceOrAdmin,
        query: generateCodesQuery,
        responses: {
          201: { description: 'The new codes', schema: generatedCodesSchema },
          404: { description: 'AFFILIATE_NOT_FOUND' },
          409: { description: 'CODE_LIMIT_REACHED' },
        },
      },
      async ({ query, caller }) => {
        const { codes } = await clients.agency.generateInviteCodes({
          projectId: caller.projectId,
          user: { identifier: query.user_identifier, identifierType: query.user_identifier_type },
          quantity: query.quantity,
          maxUses: query.max_uses,
        });
        return { status: 201, body: codes.map((code) => ({ code })) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/referral_codes',
        operationId: 'listUserReferralCodesSdk',
        summary: 'A user’s invite codes with their uses, newest first (Fuul.listUserReferralCodes)',
        description: 'An empty page when the user is no affiliate. `used_by` and `total_users` are the users referred through the code now.',
        tags,
        auth: anyProjectKey,
        query: listCodesQuery,
        responses: { 200: { description: 'A page of codes, in the SDK’s page shape', schema: inviteCodePageSchema } },
      },
      async ({ query, caller }) => {
        const page = await clients.agency.listInviteCodes({
          projectId: caller.projectId,
          user: { identifier: query.user_identifier, identifierType: query.user_identifier_type },
          page: pageRequest(query),
        });
        return { status: 200, body: presentInviteCodePage(page) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/referral_codes/status',
        operationId: 'getReferralStatusSdk',
        summary: 'Whether a user was referred, with which code and by whom (Fuul.getReferralStatus)',
        tags,
        auth: anyProjectKey,
        query: userQuery,
        responses: { 200: { description: '`referred`, and the referral’s fields when it was', schema: referralStatusSchema } },
      },
      async ({ query, caller }) => {
        const referrer = await clients.agency.getReferrer({
          projectId: caller.projectId,
          user: { identifier: query.user_identifier, identifierType: query.user_identifier_type },
        });
        return { status: 200, body: presentReferralStatus(referrer) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/referral_codes/:code',
        operationId: 'getReferralCodeSdk',
        summary: 'Whether a code would refer a user now (Fuul.getReferralCode)',
        description:
          '`available`: an active affiliate’s code, or an invite code of an active affiliate with a use left (letter case ignored); ' +
          'false for an unknown, used-up or disabled code, never a 404.',
        tags,
        auth: anyProjectKey,
        responses: { 200: { description: '`available`', schema: codeAvailabilitySchema } },
      },
      async ({ params, caller }) => {
        const { usable } = await clients.agency.checkCodeUsable({ projectId: caller.projectId, code: params.code });
        return { status: 200, body: { available: usable } };
      },
    ),
    defineRoute(
      {
        method: 'patch',
        path: '/api/v1/referral_codes/:code',
        operationId: 'updateReferralCodeSdk',
        summary: 'Sets an invite code’s max_uses: a number, null for unlimited, 0 to disable (Fuul.updateReferralCode)',
        description:
          'The uses already taken stay (and the users referred stay referred); a max_uses at or below them leaves no use. ' +
          '404 INVITE_CODE_NOT_FOUND when the project has no such invite code (affiliate codes have no max_uses).',
        tags,
        auth: serviceOrAdmin,
        body: updateCodeBody,
        responses: {
          200: { description: 'The code’s limits now', schema: updatedCodeSchema },
          404: { description: 'INVITE_CODE_NOT_FOUND' },
        },
      },
      async ({ params, body, caller }) => {
        const updated = await clients.agency.updateInviteCode({
          projectId: caller.projectId,
          code: params.code,
          maxUses: body.max_uses ?? undefined,
        });
        return { status: 200, body: presentUpdatedCode(updated) };
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/api/v1/referral_codes/:code/referrals',
        operationId: 'deleteReferralSdk',
        summary: 'Ends a user’s referral by a referrer through a code (Fuul.deleteReferral)',
        description:
          'Signed by the referred user (a signature of `signature_message` as docs/affiliates.md#signatures describes, which must ' +
          'name the code: 400 SIGNATURE_MESSAGE_MISMATCH, 400 INVALID_SIGNATURE, 422 SIGNATURE_UNVERIFIABLE or 503 ' +
          'CHAIN_UNAVAILABLE when it cannot be checked), or, without a signature, by an admin or service_role key (403 ' +
          'FORBIDDEN for a read_only key). The referral leaves the user (who may then be referred again; the first referral wins ' +
          'again) and is kept in the referral history with who ended it; an invite code’s use stays counted, and conversions already ' +
          'attributed stay paid. 404 REFERRAL_NOT_FOUND when the user has no referral by that referrer through that code (also on a retry).',
        tags,
        auth: anyProjectKey,
        query: endReferralQuery,
        body: endReferralBody,
        responses: {
          204: { description: 'Ended' },
          403: { description: 'FORBIDDEN: no signature, and the key is read_only' },
          404: { description: 'REFERRAL_NOT_FOUND' },
          422: { description: 'SIGNATURE_UNVERIFIABLE: the signature cannot be checked here' },
        },
      },
      async ({ params, query, body, caller }) => {
        const byUser = body.signature !== undefined;
        if (byUser) {
          const message = body.signature_message ?? '';
          if (!namesCode(message, params.code)) {
            throw new HttpError(400, 'SIGNATURE_MESSAGE_MISMATCH', 'signature_message must name the code of the referral', [
              { field: 'signature_message', reason: `does not name the code ${params.code}` },
            ]);
          }
          await requireWalletProof(signatures, {
            identifier: query.user_identifier,
            identifierType: query.user_identifier_type,
            message,
            signature: body.signature!,
            chainId: body.chain_id,
          });
        } else if (caller.role === 'read_only') {
          throw new HttpError(403, 'FORBIDDEN', 'without the user’s signature, only an admin or service_role key may end a referral');
        }
        await clients.agency.endReferral({
          projectId: caller.projectId,
          user: { identifier: query.user_identifier, identifierType: query.user_identifier_type },
          code: params.code,
          referrer: { identifier: query.referrer_identifier, identifierType: query.referrer_identifier_type },
          byUser,
          actorApiKeyId: byUser ? undefined : caller.keyId,
        });
        return { status: 204 };
      },
    ),
  ];
}
