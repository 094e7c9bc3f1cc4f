import { ReferredUserSort } from '../../../gen/referral/agency/v1/enums';
import type { PageInfo } from '../../../gen/referral/common/v1/common';
import { canonicalUuid } from '../../../services/rules/ids';
import { MAX_PAGE_SIZE } from '../../../services/rules/pagination';
import { listBody, pageRequest } from '../../http/list';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { familyOf } from './currency-family';
import { anyProjectKey } from '../route-access';
import { actingFor, PROJECT_NOT_FOUND, userOfQuery, userReader } from './acting-for';
import { timeWindow } from './date-window';
import {
  type IncentiveContext,
  presentIncentives,
  presentPayoutSum,
  presentReferredUserPayouts,
  presentReferredWithoutPayouts,
  presentTermsByTier,
} from './payout-queries.presenters';
import {
  conversionsQuery,
  incentivesSchema,
  payoutsByConversionQuery,
  payoutsByConversionSchema,
  payoutsByReferrerQuery,
  payoutsByReferrerSchema,
  termsByTierQuery,
  termsByTierSchema,
} from './payout-queries.schemas';

const tags = ['Payouts'];

/** The most pages of a project's list read for one answer (100 items each): terms, currencies, audiences, referred users. */
const MAX_PAGES = 100;

/** Every item of a paged list, page after page (at most MAX_PAGES of MAX_PAGE_SIZE). */
async function readAll<T>(read: (page: { page: number; pageSize: number }) => Promise<{ results: T[]; pageInfo?: PageInfo | undefined }>) {
  const items: T[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const answer = await read({ page, pageSize: MAX_PAGE_SIZE });
    items.push(...answer.results);
    if (answer.results.length < MAX_PAGE_SIZE || items.length >= Number(answer.pageInfo?.totalResults ?? 0)) break;
  }
  return items;
}

/**
 * The Fuul SDK's payouts queries (a user's payouts per conversion, an affiliate's payouts per referred
 * user) and the project's incentives (its conversion names with their payout terms, and per tier).
 */
export function payoutQueryRoutes({ clients }: RouteDeps): AnyRoute[] {
  /** The project's payout terms, with its currencies and audiences by id. */
  async function incentives(projectId: string) {
    const [terms, currencies, segments] = await Promise.all([
      readAll((page) => clients.claim.listPayoutTerms({ projectId, page })),
      readAll((page) => clients.claim.listCurrencies({ projectId, page })),
      readAll((page) => clients.audience.listSegments({ projectId, page })),
    ]);
    const context: IncentiveContext = {
      currencies: new Map(currencies.map((currency) => [currency.id, currency])),
      segments: new Map(segments.map((segment) => [segment.id, segment])),
    };
    return { terms, context };
  }

  return [
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/payouts',
        operationId: 'getUserPayoutsByConversion',
        summary: 'What a user earned per conversion name, side and currency',
        description:
          'The Fuul SDK’s getUserPayoutsByConversion (`type=onchain-currency`): the user’s movements (as GET /api/v1/payouts/movements ' +
          'lists them) summed per conversion name, side (`is_referrer`: affiliate_payout and agency_payout; else end_user_payout) ' +
          'and currency, net of reversals, declined movements left out; ordered by conversion name, the converting user’s side ' +
          'first. `from` and `to` (each a UTC day, YYYY-MM-DD, `to` inclusive, or an ISO-8601 instant; either may be left out) ' +
          'narrow it to the movements written within them: 400 VALIDATION_FAILED when `to` is before `from`. `conversion_id` is the ' +
          'conversion name, the id GET /api/v1/conversions gives it. `type=onchain-currency` (the default) sums the chain currencies only; ' +
          '`type=point` (getUserPointsByConversion) the project’s points only (whole points, `currency` its point currency). Acting for a user as on GET /api/v1/payouts/movements: a service_role or read_only key ' +
          'names it (400 without it), a wallet session reads its own.',
        tags,
        auth: userReader,
        query: payoutsByConversionQuery,
        responses: {
          200: { description: 'A page of sums', schema: payoutsByConversionSchema },
          404: PROJECT_NOT_FOUND,
        },
      },
      async ({ query, caller }) => {
        const { projectId, user } = actingFor(caller, userOfQuery(query));
        const window = timeWindow({ field: 'from', value: query.from }, { field: 'to', value: query.to });
        const page = await clients.claim.sumUserPayouts({ projectId, user, family: familyOf(query.type), page: pageRequest(query), ...window });
        return { status: 200, body: listBody(page, presentPayoutSum) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/payouts/by-referrer',
        operationId: 'getPayoutsByReferrer',
        summary: 'Per user an affiliate referred: its volume and what the affiliate earned from it',
        description:
          'The Fuul SDK’s getPayoutsByReferrer: one object per referred user, keyed by its identifier, ordered by identifier. The ' +
          'figures come from the paid conversions (processed or no_terms) attributed to the affiliate (`user_identifier`): `volume` ' +
          '(USD, a JSON number as the SDK types it) of those that occurred within `from_date`..`to_date`, and `earnings`, the ' +
          'affiliate’s affiliate_payout movements of them per currency, net of reversals, declined ones left out, `amount` in whole ' +
          'units of the currency (a JSON number, as the SDK types it) beside `amount_base_units`, the exact base units. One referral ' +
          'level: `direct_eligible_volume` is `volume`, `indirect_eligible_volume` 0 and `total_commission_earned` the `earnings` ' +
          '(levels 2 to 4 will add to them). `date_joined`: the user’s first attributed conversion, all time; `user_rebate_rate` ' +
          '(0 to 1): the one frozen on its latest; `referral_code`: the code it was referred with (else the one its latest conversion ' +
          'named). `referrer_scope=active` (the default) lists the users with volume or earnings in the window; `all` adds the ' +
          'others the affiliate was attributed conversions of or referred (volume 0, no earnings; `date_joined` null for a user never ' +
          'attributed a conversion). 404 AFFILIATE_NOT_FOUND when the user is no affiliate of the project. At most 10,000 users of ' +
          'each kind. `from_date` and `to_date` (each a UTC day, YYYY-MM-DD, `to_date` inclusive, or an ISO-8601 instant) go together: one without the other, or `to_date` before `from_date`, is 400 VALIDATION_FAILED; both left out, all ' +
          'time. Acting for a user as on GET /api/v1/payouts/movements (a wallet session reads its own referred users).',
        tags,
        auth: userReader,
        query: payoutsByReferrerQuery,
        responses: {
          200: { description: 'The referred users', schema: payoutsByReferrerSchema },
          404: {
            description:
              'AFFILIATE_NOT_FOUND: the user is no affiliate of the project; PROJECT_NOT_FOUND: the project_id names no project (of the key)',
          },
        },
      },
      async ({ query, caller }) => {
        const { projectId, user } = actingFor(caller, userOfQuery(query));
        const window = timeWindow({ field: 'from_date', value: query.from_date }, { field: 'to_date', value: query.to_date }, true);
        const [paid, referred] = await Promise.all([
          clients.claim.listReferredUserPayouts({ projectId, affiliate: user, ...window }),
          readAll((page) => clients.agency.listAffiliateReferrals({ projectId, user, sortBy: ReferredUserSort.UNSPECIFIED, page })),
        ]);
        const referredWith = new Map(referred.map((item) => [`${item.user?.identifierType}:${item.user?.identifier}`, item.code]));
        const key = (ref: { identifier: string; identifierType: string } | undefined) => `${ref?.identifierType}:${ref?.identifier}`;
        const active = paid.results.filter((record) => Number(record.volumeUsd) > 0 || record.earnings.some((earning) => earning.amount !== '0'));
        const listed = query.referrer_scope === 'all' ? paid.results : active;
        const seen = new Set(paid.results.map((record) => key(record.user)));
        const entries = [
          ...listed.map((record) => ({
            identifier: record.user?.identifier ?? '',
            body: presentReferredUserPayouts(user.identifier, record, referredWith.get(key(record.user))),
          })),
          ...(query.referrer_scope === 'all' ? referred : [])
            .filter((item) => !seen.has(key(item.user)))
            .map((item) => ({ identifier: item.user?.identifier ?? '', body: presentReferredWithoutPayouts(user.identifier, item) })),
        ];
        entries.sort((a, b) => (a.identifier < b.identifier ? -1 : a.identifier > b.identifier ? 1 : 0));
        return { status: 200, body: entries.map((entry) => entry.body) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/payouts/terms-by-tier',
        operationId: 'getIncentivesByTier',
        summary: 'What each conversion name pays an affiliate of each tier',
        description:
          'The Fuul SDK’s getIncentivesByTier: one entry per tier of the project (an audience with a rank, highest rank first), then ' +
          'the default bucket (`tier_id` null: an affiliate in no tier the terms name), each listing every conversion name’s payout ' +
          'terms (by name) as an affiliate there earns them: `affiliate_rate` the tier’s reward where the terms name the tier, else ' +
          'their default affiliate reward. A rate is `unit: "base_units"` (a fixed amount of the currency at `currency`, its ' +
          'address), `"bps"` (basis points of the conversion’s reward_base) or `"none"` (not paid, `amount` null). One referral ' +
          'level: `is_multi_level` false and `affiliate2_rate`..`affiliate4_rate` unit none. `tier_ids` (comma-separated; `null` ' +
          'names the default bucket) narrows the entries; an id that names no tier of the project matches nothing.',
        tags,
        auth: anyProjectKey,
        query: termsByTierQuery,
        responses: { 200: { description: 'The terms per tier', schema: termsByTierSchema } },
      },
      async ({ query, caller }) => {
        const wanted =
          query.tier_ids === undefined
            ? undefined
            : new Set(
                query.tier_ids
                  .split(',')
                  .map((id) => id.trim())
                  .filter((id) => id !== '')
                  .map((id) => (id === 'null' ? id : canonicalUuid(id))),
              );
        const { terms, context } = await incentives(caller.projectId);
        return { status: 200, body: presentTermsByTier(terms, context, wanted) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/conversions',
        operationId: 'listIncentives',
        summary: 'The project’s incentives: its conversion names with their payout terms',
        description:
          'The Fuul SDK’s getConversions and getIncentives (GET `conversions`): a JSON array, one Conversion per conversion name the ' +
          'project has payout terms for, oldest terms first. `id` is the name (what getUserPayoutsByConversion’s `conversion_id` ' +
          'says), `external_id` its 1-based position in that order, `slug` the name in lower case (each run of other characters than ' +
          'a-z 0-9 a -); `triggers` is empty (the project’s backend reports conversions: POST /api/v1/conversions). `payout_terms` ' +
          'holds the name’s one set of terms: a fixed reward in base units (`referrer_amount`, `referral_amount`, a payout group’s ' +
          '`affiliate_amount`), a variable one as a payout group’s `*_amount_percentage` (basis points ÷ 100, of the conversion’s ' +
          'reward_base); one payout group `default`, then one per tier the terms name (`project_tier`); the caps as ' +
          '`max_payout_amount` (per conversion), `end_user_cap_amount` (per end user, all time) and `wallet_cap_amount` with ' +
          '`wallet_cap_window_days` (per affiliate). One referral level: the `affiliate2`..`affiliate4` amounts are null. ' +
          'This path’s GET and POST mean different things: POST reports a conversion record (a trade, a purchase), which ' +
          'GET /api/v1/conversions/{conversionId} reads back and GET /api/v1/projects/{projectId}/conversions lists for admins; GET ' +
          'here answers what the SDK reads under the same path, the conversion names a project pays for. The query parameters ' +
          'the SDK’s deprecated getConversions(params) sends are accepted and not used.',
        tags: ['Conversions'],
        auth: anyProjectKey,
        query: conversionsQuery,
        responses: { 200: { description: 'The incentives', schema: incentivesSchema } },
      },
      async ({ caller }) => {
        const { terms, context } = await incentives(caller.projectId);
        return { status: 200, body: presentIncentives(terms, context) };
      },
    ),
  ];
}
