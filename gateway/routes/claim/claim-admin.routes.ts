import { CurrencyType } from '../../../gen/referral/claim/v1/enums';
import { enumValue } from '../../../services/rules/enums';
import { listBody, pageRequest } from '../../http/list';
import { required } from '../../http/present';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { presentCurrency, presentPayoutTerms } from './claim.presenters';
import {
  currencyBody,
  currencyListSchema,
  currencySchema,
  listQuery,
  payoutTermsBody,
  payoutTermsListSchema,
  payoutTermsSchema,
  type rewardBody,
} from './claim.schemas';
import type { z } from 'zod';
import { projectAdmin } from '../route-access';

const tags = ['Payouts administration'];

type RewardBody = z.output<typeof rewardBody>;
const toReward = (reward: RewardBody | null) => (reward === null ? undefined : 'fixed' in reward ? { fixed: reward.fixed } : { bps: reward.bps });
/** The rewards of referral levels 2..4 of the body or one of its tiers (docs/claims.md#referral-levels). */
const uplineRewards = (rewards: { affiliate2: RewardBody | null; affiliate3: RewardBody | null; affiliate4: RewardBody | null }) => ({
  affiliate2: toReward(rewards.affiliate2),
  affiliate3: toReward(rewards.affiliate3),
  affiliate4: toReward(rewards.affiliate4),
});

/** The currencies a project pays in, and its payout terms per conversion name (admin keys). */
export function claimAdminRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'post',
        path: '/api/v1/projects/:projectId/currencies',
        operationId: 'createCurrency',
        summary: 'Add a currency the project pays in',
        description:
          'An erc20 currency is its token contract; a native one is the chain’s coin at 0x0000000000000000000000000000000000000000. ' +
          'A (chain, address) is added once: again answers 409 CURRENCY_EXISTS. A point currency (`type: point`, docs/claims.md#points) ' +
          'has no chain and no address (400 naming `chain_id` or `address` when given) and counts whole points (`decimals` 0, else 400); ' +
          'a project has at most one: a second answers 409 POINT_CURRENCY_EXISTS.',
        tags,
        auth: projectAdmin,
        body: currencyBody,
        responses: {
          201: { description: 'The currency', schema: currencySchema },
          409: {
            description:
              'CURRENCY_EXISTS: the project already has this address on this chain; POINT_CURRENCY_EXISTS: it already has its point currency',
          },
        },
      },
      async ({ body, caller }) => {
        const currency = await clients.claim.createCurrency({
          projectId: caller.projectId,
          // Left out (a point currency's): 0 and "", proto3's "none".
          chainId: String(body.chain_id ?? 0),
          address: body.address ?? '',
          name: body.name,
          decimals: body.decimals,
          type: enumValue(CurrencyType, body.type),
        });
        return { status: 201, body: presentCurrency(currency) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/currencies',
        operationId: 'listCurrencies',
        summary: 'The project’s currencies, oldest first',
        tags,
        auth: projectAdmin,
        query: listQuery,
        responses: { 200: { description: 'A page of currencies', schema: currencyListSchema } },
      },
      async ({ query, caller }) => {
        const page = await clients.claim.listCurrencies({ projectId: caller.projectId, page: pageRequest(query) });
        return { status: 200, body: listBody(page, presentCurrency) };
      },
    ),
    defineRoute(
      {
        method: 'put',
        path: '/api/v1/projects/:projectId/payout-terms/:conversionName',
        operationId: 'putPayoutTerms',
        summary: 'Set what a conversion of this name pays',
        description:
          'Creates the terms (201) or replaces them whole (200). A reward is `{ "fixed": "<base units>" }` or `{ "bps": 0..10000 }` of the ' +
          'conversion’s `reward_base`, floored. The affiliate is paid the reward of its active tier when `tiers` names it, else `affiliate`; ' +
          'its master affiliate earns its spread of `reward_base` on top (agency_payout). Referral levels: `affiliate2`, `affiliate3` and ' +
          '`affiliate4` (on the terms and on each tier, null or absent: not paid) pay the affiliate that referred the referring affiliate, ' +
          'and the two above it, each an affiliate_payout with its `level`; a tier that names the referring affiliate’s active tier ' +
          'replaces the rewards of every level. The spread and a code’s rebate come from level 1 only. New terms apply to conversions paid from then on. ' +
          'Allowlists: `end_user_allowlist_audience_id` and `affiliate_allowlist_audience_id` each name an audience of the project (static ' +
          'or dynamic) or null; when set, only users who are its members at the moment the conversion is processed earn that side’s reward, ' +
          'and a master’s spread follows its affiliate’s eligibility. GET /api/v1/conversions/{conversionId} says per side `paid` or ' +
          '`not_eligible`, with the audience. An audience deleted later stays named here and has no members: nobody earns that side until ' +
          'the terms name another audience or null. Saving terms that name an allowlist asks the audience service (503 ' +
          'AUDIENCE_SERVICE_UNAVAILABLE when it cannot answer: nothing is saved). Holding and approval: with `hold_days` the movements of ' +
          'a conversion wait that many days (`pending`, then `available` in an open claim check, released by a periodic job); with ' +
          '`require_approval` they wait for POST /api/v1/projects/{projectId}/movements/approve (or /decline). Caps: `caps` bounds ' +
          'what one movement pays (`per_conversion`), what one end user earns under these terms ever (`per_end_user`) and what one ' +
          'affiliate earns under them over a rolling window (`per_affiliate_window`); what a cap cuts is recorded on the movement ' +
          '(`capped_amount`, `capped_by`) and never paid later, and concurrent payments of the same user never exceed a cap.',
        tags,
        auth: projectAdmin,
        body: payoutTermsBody,
        responses: {
          200: { description: 'The terms, replaced', schema: payoutTermsSchema },
          201: { description: 'The terms, created', schema: payoutTermsSchema },
          400: {
            description:
              'VALIDATION_FAILED (a cap of 0, a window of days outside 1..365: `details` names the field, e.g. `caps.per_end_user`); ' +
              'AMOUNT_OUT_OF_RANGE when the only problem is an amount (a fixed reward, a cap) past 2^256 − 1 (the most a voucher pays); ' +
              'CURRENCY_NOT_FOUND: currency_id names no currency of the project; AUDIENCE_NOT_FOUND: an allowlist names no ' +
              'audience of the project (an unknown, deleted or other project’s audience; `details` names the field)',
          },
          503: { description: 'AUDIENCE_SERVICE_UNAVAILABLE: an allowlist could not be checked; nothing was saved' },
        },
      },
      async ({ params, body, caller }) => {
        const response = await clients.claim.putPayoutTerms({
          projectId: caller.projectId,
          conversionName: params.conversionName,
          currencyId: body.currency_id,
          endUser: toReward(body.end_user),
          affiliate: toReward(body.affiliate),
          ...uplineRewards(body),
          tiers: body.tiers.map((tier) => ({ audienceId: tier.audience_id, affiliate: toReward(tier.affiliate), ...uplineRewards(tier) })),
          endUserAllowlistAudienceId: body.end_user_allowlist_audience_id ?? undefined,
          affiliateAllowlistAudienceId: body.affiliate_allowlist_audience_id ?? undefined,
          holdDays: body.hold_days,
          requireApproval: body.require_approval,
          caps: body.caps
            ? {
                perConversion: body.caps.per_conversion ?? undefined,
                perEndUser: body.caps.per_end_user ?? undefined,
                perAffiliateWindow: body.caps.per_affiliate_window ?? undefined,
              }
            : undefined,
        });
        return { status: response.created ? 201 : 200, body: presentPayoutTerms(required(response.terms, 'terms')) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/payout-terms/:conversionName',
        operationId: 'getPayoutTerms',
        summary: 'What a conversion of this name pays',
        tags,
        auth: projectAdmin,
        responses: {
          200: { description: 'The terms', schema: payoutTermsSchema },
          404: { description: 'PAYOUT_TERMS_NOT_FOUND' },
        },
      },
      async ({ params, caller }) => {
        const terms = await clients.claim.getPayoutTerms({ projectId: caller.projectId, conversionName: params.conversionName });
        return { status: 200, body: presentPayoutTerms(terms) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/payout-terms',
        operationId: 'listPayoutTerms',
        summary: 'The project’s payout terms, by conversion name',
        tags,
        auth: projectAdmin,
        query: listQuery,
        responses: { 200: { description: 'A page of terms', schema: payoutTermsListSchema } },
      },
      async ({ query, caller }) => {
        const page = await clients.claim.listPayoutTerms({ projectId: caller.projectId, page: pageRequest(query) });
        return { status: 200, body: listBody(page, presentPayoutTerms) };
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/api/v1/projects/:projectId/payout-terms/:conversionName',
        operationId: 'deletePayoutTerms',
        summary: 'Stop paying conversions of this name',
        description: 'Conversions of this name processed from then on are recorded as `no_terms`; movements already written stay.',
        tags,
        auth: projectAdmin,
        responses: {
          204: { description: 'Deleted' },
          404: { description: 'PAYOUT_TERMS_NOT_FOUND' },
        },
      },
      async ({ params, caller }) => {
        await clients.claim.deletePayoutTerms({ projectId: caller.projectId, conversionName: params.conversionName });
        return { status: 204 };
      },
    ),
  ];
}
