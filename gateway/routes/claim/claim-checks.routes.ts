import type { ListClaimChecksResponse } from '../../../gen/referral/claim/v1/claim';
import { ClaimCheckStatus } from '../../../gen/referral/claim/v1/enums';
import { FreshReads } from '../../../services/platform/shared-reads';
import { HttpError } from '../../http/errors';
import { listBody, pageRequest } from '../../http/list';
import { type AnyRoute, defineRoute, sharedBody } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { actingFor, type NamedUser, PROJECT_NOT_FOUND, userReader } from './acting-for';
import { presentClaimCheck, presentClaimResponse, presentHistory, presentTotals, STATUS_OF_LIST_STATUS } from './claim-checks.presenters';
import {
  claimBody,
  claimCheckListQuery,
  claimCheckListSchema,
  claimHistoryQuery,
  claimHistorySchema,
  claimResponsesSchema,
  closeBody,
  MAX_CLOSE_IDS,
  totalsSchema,
  userOnlyQuery,
} from './claim-checks.schemas';

const tags = ['Claim checks (@fuul/sdk)'];
/** service_role may do everything, read_only the reads and /claim; a wallet session acts for its own wallet. */
const reader = userReader;
const closer = { kind: 'user_or_session', roles: ['service_role'], project: 'key' } as const;

const ACTING =
  'Acting for a user: with a project API key, name the user (`user_identifier` / `user_identifier_type` in the query, or ' +
  '`userIdentifier` / `userIdentifierType` in the body, as the Fuul SDK sends them); with a wallet session token, the route acts ' +
  'for the signed-in wallet in the project named by the `project_id` query parameter (naming another user is 403). ' +
  'Affiliate and agency checks are behind the tax gate: where the project requires tax information and the user’s form is not ' +
  'approved (not submitted, in review, revoked, or an expired W-8), they come back with `restriction_message` (status 200, never 403).';

const notFound = { 404: PROJECT_NOT_FOUND } as const;

/** One of two spellings of a body field (the SDK's camelCase, or snake_case); both given must agree. */
function either(camel: string | undefined, snake: string | undefined, names: [string, string]): string | undefined {
  if (camel !== undefined && snake !== undefined && camel !== snake) {
    throw new HttpError(400, 'VALIDATION_FAILED', `${names[0]} and ${names[1]} name the same thing and disagree: send one`, [
      { field: names[1], reason: `differs from ${names[0]}` },
    ]);
  }
  return camel ?? snake;
}

function bodyUser(body: {
  userIdentifier?: string;
  userIdentifierType?: string;
  user_identifier?: string;
  user_identifier_type?: string;
}): NamedUser {
  return {
    identifier: either(body.userIdentifier, body.user_identifier, ['userIdentifier', 'user_identifier']),
    identifierType: either(body.userIdentifierType, body.user_identifier_type, ['userIdentifierType', 'user_identifier_type']),
    field: 'userIdentifier',
  };
}

const queryUser = (query: { user_identifier?: string; user_identifier_type?: string }): NamedUser => ({
  identifier: query.user_identifier,
  identifierType: query.user_identifier_type,
  field: 'user_identifier',
});

type ClaimCheckListBody = ReturnType<typeof claimCheckListBody>;

/** The standard list, its items also under `claim_checks` (the key the SDK reads). */
function claimCheckListBody(page: ListClaimChecksResponse) {
  const body = listBody(page, presentClaimCheck);
  return { ...body, claim_checks: body.results };
}

/**
 * Claim checks (specification §4.4) at the paths, with the bodies and answers, of the published
 * @fuul/sdk: getClaimChecks, closeClaimChecks, getClaimableChecks, getClaimCheckTotals, getClaimHistory.
 */
export function claimCheckRoutes({ clients, sharedReads }: RouteDeps): AnyRoute[] {
  // Identical list requests (same user, filter and page) that overlap share one read, each read
  // begun after every request it answers arrived: a close or payment that committed before a
  // request is always in its answer.
  const lists = new FreshReads<ClaimCheckListBody>(sharedReads('claim_check_list'));
  return [
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/claim-checks',
        operationId: 'listClaimChecks',
        summary: 'A user’s claim checks, newest first (Fuul.getClaimChecks)',
        description:
          'The standard list, with the same items also under `claim_checks` (the key the SDK reads). Open checks accumulate the user’s ' +
          'payouts per (currency, reason) until closed; none holds more than 2^256 − 1 (what a voucher pays): a payout that would take it ' +
          'past that leaves it full (still open, closable) and opens another, so a user may have several open checks of one currency and ' +
          'reason. A restricted item carries `restriction_message` and omits `deadline_seconds`. ' +
          'Always current: a close, claim or payment committed before the request is in its answer (identical requests that arrive ' +
          'while one is being read share the next read). ' +
          ACTING,
        tags,
        auth: reader,
        query: claimCheckListQuery,
        responses: { 200: { description: 'A page of the user’s checks', schema: claimCheckListSchema }, ...notFound },
      },
      async ({ query, caller }) => {
        const { projectId, user } = actingFor(caller, queryUser(query));
        const status = query.status === undefined ? ClaimCheckStatus.UNSPECIFIED : STATUS_OF_LIST_STATUS[query.status];
        const key = JSON.stringify([projectId, user.identifier, user.identifierType, status, query.page, query.page_size]);
        const body = await lists.read(key, async () =>
          sharedBody(claimCheckListBody(await clients.claim.listClaimChecks({ projectId, user, status, page: pageRequest(query) }))),
        );
        return { status: 200, body };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/claim-checks/close',
        operationId: 'closeClaimChecks',
        summary: 'Signs a voucher for each of the user’s open checks named (Fuul.closeClaimChecks)',
        description:
          'Each open check is closed into an EIP-712 voucher of Fuul v2’s ClaimCheck struct (deadline = now + CLAIM_VOUCHER_TTL_SECONDS, ' +
          'a unique 32-byte proof, one signature per signer key), ready for ClaimManager.claim. A check closed before answers the same ' +
          'voucher again, never a second one, however many closes race. A check the tax gate restricts is not signed: it comes back with ' +
          '`restriction_message` and without deadline, proof and signatures. One answer per distinct id, in the order sent. Refused ' +
          'whole, closing nothing: 404 CLAIM_CHECK_NOT_FOUND (an id names no check of this user), 409 CLAIM_CHECK_EXPIRED (its voucher ' +
          'expired unredeemed; close the open check its amount went back to), 409 CLAIM_CHECK_UNSIGNABLE (no voucher the ClaimManager ' +
          'would pay can be signed for a check as it stands, e.g. an amount past 2^256 − 1 held since before amounts were bounded; ' +
          '`details` name the check and why), 409 CLAIM_CHECK_NOT_POSITIVE (reversals took back what a check held: it carries only the ' +
          'user’s debt, paid first out of what the user earns next), 400 CLAIM_SETTINGS_MISSING / CHAIN_NOT_CONFIGURED / ' +
          `CLAIM_NEEDS_EVM_ADDRESS. At most ${MAX_CLOSE_IDS} ids (413 beyond). ${ACTING}`,
        tags,
        auth: closer,
        query: userOnlyQuery.pick({ project_id: true }),
        body: closeBody,
        arrayLimit: { field: 'claim_check_ids', max: MAX_CLOSE_IDS, code: 'TOO_MANY_CLAIM_CHECKS' },
        responses: {
          200: { description: 'One ClaimResponse per check', schema: claimResponsesSchema },
          404: { description: 'CLAIM_CHECK_NOT_FOUND, or PROJECT_NOT_FOUND' },
          409: { description: 'CLAIM_CHECK_EXPIRED, CLAIM_CHECK_UNSIGNABLE, or CLAIM_CHECK_NOT_POSITIVE (the check holds only debt)' },
        },
      },
      async ({ body, caller }) => {
        const { projectId, user } = actingFor(caller, bodyUser(body));
        const { results } = await clients.claim.closeClaimChecks({ projectId, user, claimCheckIds: body.claim_check_ids });
        return { status: 200, body: results.map(presentClaimResponse) };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/claim-checks/claim',
        operationId: 'listClaimableChecks',
        summary: 'The user’s vouchers still to redeem: closed, unredeemed, before their deadline (Fuul.getClaimableChecks)',
        description: `Oldest first. A restricted row carries \`restriction_message\` and omits deadline, proof and signatures. ${ACTING}`,
        tags,
        auth: reader,
        query: userOnlyQuery.pick({ project_id: true }),
        body: claimBody,
        responses: { 200: { description: 'One ClaimResponse per voucher', schema: claimResponsesSchema }, ...notFound },
      },
      async ({ body, caller }) => {
        const { projectId, user } = actingFor(caller, bodyUser(body));
        const { results } = await clients.claim.listClaimableVouchers({ projectId, user });
        return { status: 200, body: results.map(presentClaimResponse) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/claim-checks/totals',
        operationId: 'getClaimCheckTotals',
        summary: 'Per currency, what the user redeemed and what is still to claim (Fuul.getClaimCheckTotals)',
        description:
          '`claimed`: redeemed on chain; `unclaimed`: open, or closed into a voucher not redeemed yet (a voucher that expired unredeemed ' +
          'counts once, in the open check its amount went back to); `pending`: movements held (the payout terms’ hold_days) or waiting ' +
          'for an approval, in no check yet, which join `unclaimed` when they become available; `debt`: what reversals (a refunded ' +
          'conversion) took back after its voucher was out, paid first out of what the user earns next (an open check holding only ' +
          `debt cannot be closed). ${ACTING}`,
        tags,
        auth: reader,
        query: userOnlyQuery,
        responses: { 200: { description: 'Totals per currency', schema: totalsSchema }, ...notFound },
      },
      async ({ query, caller }) => {
        const { projectId, user } = actingFor(caller, queryUser(query));
        return { status: 200, body: presentTotals(await clients.claim.getClaimCheckTotals({ projectId, user })) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/claim-checks/claim-history',
        operationId: 'getClaimHistory',
        summary: 'The user’s redemptions, one row per (transaction, currency), newest first (Fuul.getClaimHistory)',
        description:
          'Ordered by the block time of the transaction, then hash, then currency. `total_count` counts (transaction, currency) rows; ' +
          `\`next_page\` is page + 1 while more follow. ${ACTING}`,
        tags,
        auth: reader,
        query: claimHistoryQuery,
        responses: { 200: { description: 'A page of redemptions', schema: claimHistorySchema }, ...notFound },
      },
      async ({ query, caller }) => {
        const { projectId, user } = actingFor(caller, queryUser(query));
        const history = await clients.claim.listClaimHistory({ projectId, user, page: pageRequest(query) });
        return { status: 200, body: presentHistory(history) };
      },
    ),
  ];
}
