import { z } from 'zod';
import { isServiceError, readGrpcError } from '../../../services/platform/grpc/errors';
import { HttpError } from '../../http/errors';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { presentReferrer, presentSdkAffiliate, presentSdkCreatedAffiliate } from './agency.presenters';
import {
  affiliateQuery,
  referralSchema,
  referrerSchema,
  sdkAffiliateSchema,
  sdkCodeRebateRateSchema,
  sdkCreateAffiliateBody,
  sdkCreatedAffiliateSchema,
  sdkUpdateAffiliateCodeBody,
  sdkUpdateRebateRateBody,
  useCodeBody,
  userQuery,
} from './agency.schemas';
import { bpsToRebateRate } from '../../../services/rules/rebate-rate';
import { recordReferral } from './record-referral';
import { anyProjectKey } from '../route-access';
import { requireWalletProof } from '../../auth/wallet-signatures';
import { required } from '../../http/present';

const tags = ['Affiliate self-service (@fuul/sdk)'];

/**
 * The @fuul/sdk matches these exact messages (lowercased) to throw its typed errors
 * (AddressInUseError, CodeInUseError; InvalidSignatureError comes from requireWalletProof): they are its contract, not prose.
 */
const SDK_CONFLICTS: Record<string, () => HttpError> = {
  AFFILIATE_EXISTS: () => new HttpError(409, 'ADDRESS_IN_USE', 'address in use'),
  CODE_IN_USE: () => new HttpError(409, 'CODE_IN_USE', 'code in use'),
};

/** The service's refusals in the SDK's words; anything else is answered as everywhere. */
async function inSdkTerms<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    const code = isServiceError(error) ? readGrpcError(error).code : undefined;
    const translated = code === undefined ? undefined : SDK_CONFLICTS[code];
    throw translated ? translated() : error;
  }
}

/** The SDK sends the affiliate both in the path and in the body: they must name the same wallet. */
function sameAffiliate(path: string, body: string | undefined): void {
  if (body !== undefined && body !== path) {
    throw new HttpError(400, 'VALIDATION_FAILED', 'user_identifier: must be the affiliate of the path', [
      { field: 'user_identifier', reason: 'must be the affiliate of the path' },
    ]);
  }
}

/** The code appears in the message as a whole word (letter case ignored), not inside a longer code. */
export function namesCode(message: string, code: string): boolean {
  const escaped = code.replace(/[-\\^$.*+?()[\]{}|]/g, '\\$&');
  return new RegExp(`(^|[^A-Za-z0-9_-])${escaped}($|[^A-Za-z0-9_-])`, 'i').test(message);
}

const UNVERIFIABLE = { description: 'SIGNATURE_UNVERIFIABLE: the signature cannot be checked here' };

const codeAnswer = (field: 'free' | 'available') => z.object({ [field]: z.boolean() });

/**
 * The paths the published @fuul/sdk calls (`Fuul.init({ apiKey, baseApiUrl: '<gateway>/api/v1/' })`):
 * createAffiliateCode, updateAffiliateCode, updateRebateRate, getAffiliateCode / getAffiliateInfo, isAffiliateCodeFree / isAffiliateCodeAvailable,
 * useReferralCode and getUserReferrer. Bodies, casing and error messages are the SDK's.
 */
export function sdkRoutes({ clients, signatures, affiliateMessages }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/affiliates',
        operationId: 'createAffiliateCodeSdk',
        summary: 'A wallet becomes an affiliate of the key’s project with its first code (Fuul.createAffiliateCode)',
        description:
          '`signature` is the wallet’s signature of the configured message (AFFILIATE_CODE_MESSAGE_TEMPLATE, by default ' +
          '`I confirm that I am creating the {code} code`) with {code} replaced by the code as sent: EIP-191 by an EVM key, EIP-1271 by a ' +
          'contract wallet on `account_chain_id`, ed25519 by a Solana or Stellar key (docs/affiliates.md#signatures). Errors carry the ' +
          'messages the SDK matches: `invalid signature` (400 INVALID_SIGNATURE), `address in use` (409 ADDRESS_IN_USE: the wallet is ' +
          'already an affiliate), `code in use` (409 CODE_IN_USE: the project has the code in any letter case). A signature that cannot ' +
          'be checked here answers 422 SIGNATURE_UNVERIFIABLE (e.g. a contract wallet on a chain not in CHAIN_RPC_URLS), or 503 ' +
          'CHAIN_UNAVAILABLE when that chain does not answer. ' +
          '`user_rebate_rate` (0 to 0.2, at most two decimals, else 400 VALIDATION_FAILED) is the share of the affiliate’s reward that ' +
          'goes to the users it refers through the code.',
        tags,
        auth: anyProjectKey,
        body: sdkCreateAffiliateBody,
        responses: {
          201: { description: 'The affiliate and its code', schema: sdkCreatedAffiliateSchema },
          409: { description: '`address in use` or `code in use`' },
          422: UNVERIFIABLE,
        },
      },
      async ({ body, caller }) => {
        await requireWalletProof(signatures, {
          identifier: body.address,
          identifierType: body.identifier_type,
          message: signatures.codeCreationMessage(body.code),
          signature: body.signature,
          publicKey: body.signature_public_key,
          chainId: body.account_chain_id,
        });
        const affiliate = await inSdkTerms(
          clients.agency.createAffiliate({
            projectId: caller.projectId,
            user: { identifier: body.address, identifierType: body.identifier_type },
            name: body.name ?? body.code,
            code: body.code,
            actor: {},
            userRebateRateBps: body.user_rebate_rate ?? undefined,
          }),
        );
        return { status: 201, body: presentSdkCreatedAffiliate(affiliate, body.code) };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/affiliates/:address',
        operationId: 'updateAffiliateCodeSdk',
        summary: 'An affiliate changes its code (Fuul.updateAffiliateCode)',
        description:
          'The new code is added as the affiliate’s newest code, with the rebate rate of its newest code until now; its older codes ' +
          'stay: they keep referring, and the users referred through them keep their code, their figures and their rebate. (Replacing ' +
          'a code would break the links already shared and free the code for another affiliate, who would then receive its visitors.) ' +
          'So `codes` (oldest first) ends with the new code. `signature` is the affiliate’s signature of the configured message ' +
          '(AFFILIATE_CODE_UPDATE_MESSAGE_TEMPLATE, by default `I confirm that I am updating my code to {code}`) with {code} replaced ' +
          'by the new code as sent (EIP-191, EIP-1271 on `account_chain_id`, ed25519: docs/affiliates.md#signatures; 422 ' +
          'SIGNATURE_UNVERIFIABLE or 503 CHAIN_UNAVAILABLE when it cannot be checked). A code the affiliate already holds answers it unchanged (a retry is harmless). Errors in the SDK’s ' +
          'words: `invalid signature` (400 INVALID_SIGNATURE), `code in use` (409 CODE_IN_USE: another affiliate holds it, any letter ' +
          'case); 404 AFFILIATE_NOT_FOUND; 409 CODE_LIMIT_REACHED (20 codes); 400 VALIDATION_FAILED when the body’s ' +
          '`user_identifier` is not the path’s.',
        tags,
        auth: anyProjectKey,
        body: sdkUpdateAffiliateCodeBody,
        responses: {
          200: { description: 'The affiliate, `code` the new code', schema: sdkCreatedAffiliateSchema },
          404: { description: 'AFFILIATE_NOT_FOUND' },
          409: { description: '`code in use`, or CODE_LIMIT_REACHED' },
          422: UNVERIFIABLE,
        },
      },
      async ({ params, body, caller }) => {
        sameAffiliate(params.address, body.user_identifier);
        await requireWalletProof(signatures, {
          identifier: params.address,
          identifierType: body.identifier_type,
          message: affiliateMessages.codeUpdate(body.code),
          signature: body.signature,
          publicKey: body.signature_public_key,
          chainId: body.account_chain_id,
        });
        const affiliate = await inSdkTerms(
          clients.agency.updateAffiliateCode({
            projectId: caller.projectId,
            user: { identifier: params.address, identifierType: body.identifier_type },
            code: body.code,
          }),
        );
        return { status: 200, body: presentSdkCreatedAffiliate(affiliate, body.code) };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/affiliates/:address/rebate-rate',
        operationId: 'updateRebateRateSdk',
        summary: 'An affiliate sets the user rebate rate of one of its codes (Fuul.updateRebateRate)',
        description:
          '`rebate_rate` (0 to 0.2, at most two decimals, else 400 VALIDATION_FAILED) is the share of the affiliate’s own reward that ' +
          'goes to each user it referred through the code, from their next conversions on. `signature` is the affiliate’s signature of ' +
          'the configured message (AFFILIATE_REBATE_MESSAGE_TEMPLATE, by default `I confirm that I am setting the rebate rate of {code} ' +
          'to {rate}`) with {code} and {rate} replaced by the code and the rate as sent (0.05 as `0.05`), checked as docs/affiliates.md#signatures says (422 SIGNATURE_UNVERIFIABLE or 503 ' +
          'CHAIN_UNAVAILABLE when it cannot be). The project is the API key’s ' +
          '(`source_project_id` is accepted and ignored). Errors: `invalid signature` (400 INVALID_SIGNATURE), 404 AFFILIATE_NOT_FOUND, ' +
          '404 CODE_NOT_FOUND (the affiliate holds no such code).',
        tags,
        auth: anyProjectKey,
        body: sdkUpdateRebateRateBody,
        responses: {
          200: { description: 'The code and its rate', schema: sdkCodeRebateRateSchema },
          404: { description: 'AFFILIATE_NOT_FOUND or CODE_NOT_FOUND' },
          422: UNVERIFIABLE,
        },
      },
      async ({ params, body, caller }) => {
        await requireWalletProof(signatures, {
          identifier: params.address,
          identifierType: body.identifier_type,
          // The rate as sent: a number with at most two decimals is the same number as its basis points / 10,000.
          message: affiliateMessages.rebateRate(body.code, bpsToRebateRate(body.rebate_rate)!),
          signature: body.signature,
          publicKey: body.signature_public_key,
          chainId: body.account_chain_id,
        });
        const affiliate = await clients.agency.setCodeRebateRate({
          projectId: caller.projectId,
          user: { identifier: params.address, identifierType: body.identifier_type },
          code: body.code,
          userRebateRateBps: body.rebate_rate,
        });
        const code = required(
          affiliate.codes.find((held) => held.code.toLowerCase() === body.code.toLowerCase()),
          'codes',
        );
        return { status: 200, body: { code: code.code, rebate_rate: bpsToRebateRate(code.userRebateRateBps ?? null) } };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/affiliates/codes/:code',
        operationId: 'isAffiliateCodeFreeSdk',
        summary: 'Whether no affiliate of the key’s project holds the code, in any letter case (Fuul.isAffiliateCodeFree)',
        tags,
        auth: anyProjectKey,
        responses: { 200: { description: '`free`: nobody holds it', schema: codeAnswer('free') } },
      },
      async ({ params, caller }) => {
        const { free } = await clients.agency.checkCode({ projectId: caller.projectId, code: params.code });
        return { status: 200, body: { free } };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/affiliates/codes/:code/availability',
        operationId: 'isAffiliateCodeAvailableSdk',
        summary: 'Whether the code exists and has a use left (Fuul.isAffiliateCodeAvailable)',
        description:
          'As the SDK documents it: `available` when the code would refer a user now, an active affiliate’s code or an invite code of ' +
          'an active affiliate with a use left (letter case ignored). Whether a code is free to register is isAffiliateCodeFree.',
        tags,
        auth: anyProjectKey,
        responses: { 200: { description: '`available`: the code exists and has a use left', schema: codeAnswer('available') } },
      },
      async ({ params, caller }) => {
        const { usable } = await clients.agency.checkCodeUsable({ projectId: caller.projectId, code: params.code });
        return { status: 200, body: { available: usable } };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/affiliates/:address',
        operationId: 'getAffiliateSdk',
        summary: 'An affiliate of the key’s project and its codes with their figures (Fuul.getAffiliateInfo, Fuul.getAffiliateCode)',
        description:
          'Each code (oldest first) with its `uses` and `total_users` (users referred through it), `clicks` (one per tracking id and UTC ' +
          'day of a pageview naming it), `total_earnings` (the affiliate’s payouts for those users’ conversions, net of reversals, in ' +
          'whole units of each payout currency summed: USD when the project pays in a USD stablecoin) and `rebate_rate`, counted in one ' +
          'statement for all the codes; `current_tier` with its `slug` (its name in lower case, other characters runs of -). ' +
          '404 AFFILIATE_NOT_FOUND when the wallet is no affiliate of the project (the SDK then answers null).',
        tags,
        auth: anyProjectKey,
        query: affiliateQuery,
        responses: { 200: { description: 'The affiliate', schema: sdkAffiliateSchema }, 404: { description: 'AFFILIATE_NOT_FOUND' } },
      },
      async ({ params, query, caller }) => {
        const affiliate = await clients.agency.getAffiliate({
          projectId: caller.projectId,
          user: { identifier: params.address, identifierType: query.identifier_type },
        });
        return { status: 200, body: presentSdkAffiliate(affiliate) };
      },
    ),
    defineRoute(
      {
        method: 'patch',
        path: '/api/v1/referral_codes/:code/use',
        operationId: 'useReferralCodeSdk',
        summary: 'A user accepts a referral code: the first referral wins (Fuul.useReferralCode)',
        description:
          'The user proves its wallet with a signature of `signature_message` (docs/affiliates.md#signatures: EIP-191, EIP-1271 on ' +
          '`chain_id`, ed25519), which must name the code (letter case ignored): otherwise 400 SIGNATURE_MESSAGE_MISMATCH, or 400 ' +
          'INVALID_SIGNATURE (`invalid signature`) when the wallet did not sign it, 422 SIGNATURE_UNVERIFIABLE or 503 CHAIN_UNAVAILABLE ' +
          'when it cannot be checked. ' +
          'Then as POST /api/v1/referrals: 201 referred, 200 already referred by this affiliate, 409 ALREADY_REFERRED, ' +
          'AFFILIATE_SUSPENDED or REFERRAL_CYCLE, 400 SELF_REFERRAL, 404 CODE_NOT_FOUND. The code is an affiliate code or an invite code ' +
          '(/referral_codes): an invite code refers the user to its affiliate and takes one of its uses in the same transaction, ' +
          '409 CODE_EXHAUSTED when none is left (max_uses reached, or 0: disabled); a user already referred takes no use.',
        tags,
        auth: anyProjectKey,
        query: userQuery,
        body: useCodeBody,
        responses: {
          200: { description: 'Already referred by this affiliate: the stored referral, unchanged', schema: referralSchema },
          201: { description: 'The referral', schema: referralSchema },
          404: { description: 'CODE_NOT_FOUND' },
          409: { description: 'ALREADY_REFERRED, AFFILIATE_SUSPENDED, REFERRAL_CYCLE or CODE_EXHAUSTED' },
          422: { description: 'SIGNATURE_UNVERIFIABLE: the signature cannot be checked here' },
        },
      },
      async ({ params, query, body, caller }) => {
        if (!namesCode(body.signature_message, params.code)) {
          throw new HttpError(400, 'SIGNATURE_MESSAGE_MISMATCH', 'signature_message must name the code being used', [
            { field: 'signature_message', reason: `does not name the code ${params.code}` },
          ]);
        }
        await requireWalletProof(signatures, {
          identifier: query.user_identifier,
          identifierType: query.user_identifier_type,
          message: body.signature_message,
          signature: body.signature,
          chainId: body.chain_id,
        });
        return recordReferral(clients, {
          projectId: caller.projectId,
          user: { identifier: query.user_identifier, identifierType: query.user_identifier_type },
          code: params.code,
        });
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/user/referrer',
        operationId: 'getUserReferrerSdk',
        summary: 'Who referred a user in the key’s project (Fuul.getUserReferrer)',
        description: 'Nobody: every referrer field is null and `referrer_codes` is [].',
        tags,
        auth: anyProjectKey,
        query: userQuery,
        responses: { 200: { description: 'The referrer, or nulls', schema: referrerSchema } },
      },
      async ({ query, caller }) => {
        const referrer = await clients.agency.getReferrer({
          projectId: caller.projectId,
          user: { identifier: query.user_identifier, identifierType: query.user_identifier_type },
        });
        return { status: 200, body: presentReferrer(query.user_identifier, referrer) };
      },
    ),
  ];
}
