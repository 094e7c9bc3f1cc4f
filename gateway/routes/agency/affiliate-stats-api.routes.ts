import { AffiliateStatus, ReferredUserSort, StatsPeriod } from '../../../gen/referral/agency/v1/enums';
import type { AffiliateTotals } from '../../../gen/referral/agency/v1/activity';
import { MAX_PAGE_SIZE } from '../../../services/rules/pagination';
import { inferIdentifierType } from '../../../services/rules/identifiers';
import { HttpError } from '../../http/errors';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { anyProjectKey } from '../route-access';
import {
  presentBreakdown,
  presentNewTraders,
  presentPaidVolumes,
  presentReferralTree,
  presentSdkAffiliateStats,
  presentTotalStats,
} from './affiliate-stats-api.presenters';
import {
  breakdownQuery,
  breakdownSchema,
  figuresQuery,
  newTradersQuery,
  newTradersSchema,
  paidVolumesSchema,
  referralTreeSchema,
  sdkAffiliateStatsSchema,
  totalStatsQuery,
  totalStatsSchema,
  treeQuery,
} from './affiliate-stats-api.schemas';

const tags = ['Affiliate stats (@fuul/sdk)'];
const DAY_MS = 86_400_000;

const invalid = (field: string, reason: string) => new HttpError(400, 'VALIDATION_FAILED', `${field}: ${reason}`, [{ field, reason }]);

/** The affiliate the SDK names without a type (the schema has checked that it has one). */
const affiliateOf = (identifier: string) => ({ identifier, identifierType: inferIdentifierType(identifier)! });

/** A day of the query (YYYY-MM-DD) as the instant it begins. */
const instant = (value: string | undefined) => (value === undefined ? undefined : new Date(`${value}T00:00:00.000Z`));

const startOfDay = (at: Date) => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);

/** from/to, or this_month (the current UTC month up to today), never both; conversion_external_id refused (conversions are named here). */
function figuresRange(query: { from?: string; to?: string; this_month: boolean; conversion_external_id?: string }, now: Date) {
  if (query.conversion_external_id !== undefined) throw invalid('conversion_external_id', 'conversions are named here: use conversion_name');
  if (!query.this_month) return { from: instant(query.from), to: instant(query.to) };
  if (query.from !== undefined || query.to !== undefined) throw invalid('this_month', 'not with `from` or `to`');
  return { from: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)), to: now };
}

/** The days of a breakdown's date_range preset (7d, 30d: up to today; MTD, QTD: since the month's or quarter's first day). */
function breakdownRange(query: { date_range?: string; from?: string; to?: string }, now: Date): { from?: Date; to?: Date } {
  const today = startOfDay(now);
  const preset = query.date_range ?? (query.from === undefined && query.to === undefined ? '30d' : 'custom');
  if (preset !== 'custom' && (query.from !== undefined || query.to !== undefined)) throw invalid('date_range', 'only `custom` takes `from` and `to`');
  switch (preset) {
    case '7d':
      return { from: new Date(today.getTime() - 6 * DAY_MS), to: today };
    case '30d':
      return { from: new Date(today.getTime() - 29 * DAY_MS), to: today };
    case 'MTD':
      return { from: new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1)), to: today };
    case 'QTD':
      return { from: new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - (today.getUTCMonth() % 3), 1)), to: today };
    default:
      if (query.from === undefined) throw invalid('from', 'required with date_range=custom');
      return { from: instant(query.from), to: instant(query.to) };
  }
}

const PERIODS = { day: StatsPeriod.DAY, week: StatsPeriod.WEEK, month: StatsPeriod.MONTH } as const;

/** The SDK's statuses as the agency's (Terminated: none here). */
const SDK_STATUSES = { Active: [AffiliateStatus.ACTIVE], Paused: [AffiliateStatus.SUSPENDED], Flagged: [AffiliateStatus.FLAGGED], Terminated: [] };

const NO_AFFILIATES: AffiliateTotals = {
  affiliates: '0',
  active: '0',
  suspended: '0',
  flagged: '0',
  regions: '0',
  volumeUsd: '0',
  revenueUsd: '0',
  conversions: '0',
  endUsers: '0',
  earnings: [],
};

const NOT_OFFERED = { description: 'NOT_OFFERED: a program of Fuul’s own, not offered here' };

/**
 * The @fuul/sdk's affiliate stats API (Fuul.getAffiliateStats, getStatsBreakdown, getAffiliateNewTraders, getReferralTree,
 * getAffiliatePaidVolumesByLevel), with a key of the project, answered from the agency's projections through the same reads
 * as the wallet-session portal (GetAffiliateStats' series) and the affiliate list (the conversion facts behind its totals).
 * Levels 2 to 4 come from the upline frozen on each conversion (docs/claims.md#referral-levels).
 */
export function affiliateStatsApiRoutes({ clients, clock }: RouteDeps): AnyRoute[] {
  const figures = (projectId: string, identifier: string, range: { from?: Date; to?: Date }, conversionName?: string) =>
    Promise.all([
      clients.agency.getAffiliate({ projectId, user: affiliateOf(identifier) }),
      clients.agency.getAffiliateFigures({ projectId, user: affiliateOf(identifier), from: range.from, to: range.to, conversionName }),
    ]);
  const rangeDescription =
    '`from`/`to` are UTC days (both included; either side unbounded when left out), `this_month` the current UTC month up to ' +
    'today; `from` after `to`, `this_month` with either, or an invalid day answer 400. ';
  const notFound = '404 AFFILIATE_NOT_FOUND when the wallet is no affiliate of the project.';
  return [
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/affiliate-portal/stats',
        operationId: 'getAffiliateStatsSdk',
        summary: 'An affiliate’s figures over a range: volume, revenue, attributions and earnings per level (Fuul.getAffiliateStats)',
        description:
          'From the conversions attributed to the affiliate (net of reversals, as the affiliate list counts them): `referred_volume`, ' +
          '`referred_revenue`, `referred_attributions` (counted conversions), `referred_users` (distinct users converting) and ' +
          '`r1_earnings` (its payouts per currency, whole units) over the range, of one `conversion_name` when given; r2..r4 the same ' +
          'of the conversions whose frozen upline had it at levels 2..4 (docs/claims.md#referral-levels). `total_referrers` and `assigned_referrers` are all time: every user it referred. ' +
          '`status` is Active, Paused (suspended) or Flagged; `region` is null. ' +
          rangeDescription +
          '`conversion_external_id` answers 400 (conversions are named here). ' +
          notFound,
        tags,
        auth: anyProjectKey,
        query: figuresQuery,
        responses: { 200: { description: 'Its figures', schema: sdkAffiliateStatsSchema }, 404: { description: 'AFFILIATE_NOT_FOUND' } },
      },
      async ({ query, caller }) => {
        const range = figuresRange(query, clock.now());
        const [affiliate, levels] = await figures(caller.projectId, query.user_identifier, range, query.conversion_name);
        return { status: 200, body: presentSdkAffiliateStats(affiliate, levels) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/affiliate-portal/total-stats',
        operationId: 'getAffiliateTotalStatsSdk',
        summary: 'The project’s affiliates counted by status and their figures summed (Fuul.getAffiliateTotalStats)',
        description:
          'All time, from the metrics projection the affiliate list reads: affiliates (of `statuses[]`, `regions[]` and ' +
          '`audiences[]` when given: Paused is suspended, Terminated matches none, region All matches every one), how many are ' +
          'active and suspended, their distinct regions, and their volume, revenue, conversions, referred users and affiliate ' +
          'payouts per currency (whole units). An unknown status answers 400.',
        tags,
        auth: anyProjectKey,
        query: totalStatsQuery,
        responses: { 200: { description: 'The totals', schema: totalStatsSchema } },
      },
      async ({ query, caller }) => {
        const statuses = query['statuses[]'] ?? [];
        const regions = query['regions[]'] ?? [];
        // Only Terminated asked: no affiliate here is, so none is counted (an empty status list would count every one).
        const totals =
          statuses.length > 0 && statuses.every((status) => status === 'Terminated')
            ? NO_AFFILIATES
            : await clients.agency.getAffiliateTotals({
                projectId: caller.projectId,
                statuses: statuses.flatMap((status) => SDK_STATUSES[status]),
                regions: regions.includes('All') ? [] : regions,
                audienceIds: query['audiences[]'] ?? [],
              });
        return { status: 200, body: presentTotalStats(totals) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/affiliate-portal/paid-volumes-by-level',
        operationId: 'getAffiliatePaidVolumesByLevelSdk',
        summary: 'An affiliate’s payout-eligible volume, revenue and attributions per level (Fuul.getAffiliatePaidVolumesByLevel)',
        description:
          'Payout-eligible: the conversions its terms paid (processed, not no_terms), net of reversals, over the range, per referral ' +
          'level (L1 its own referred users, L2..L4 the conversions whose frozen upline had it at that level: ' +
          'docs/claims.md#referral-levels). ' +
          rangeDescription +
          notFound,
        tags,
        auth: anyProjectKey,
        query: newTradersQuery,
        responses: { 200: { description: 'Its figures per level', schema: paidVolumesSchema }, 404: { description: 'AFFILIATE_NOT_FOUND' } },
      },
      async ({ query, caller }) => {
        const [affiliate, levels] = await figures(caller.projectId, query.user_identifier, figuresRange(query, clock.now()));
        return { status: 200, body: presentPaidVolumes(affiliate, levels) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/affiliate-portal/new-traders',
        operationId: 'getAffiliateNewTradersSdk',
        summary: 'How many users first converted with an affiliate in a range (Fuul.getAffiliateNewTraders)',
        description:
          'One entry, the affiliate’s: `total_new_traders` counts the users it referred whose first conversion attributed to it ' +
          'lies in the range (all time: every user that converted). ' +
          rangeDescription +
          notFound,
        tags,
        auth: anyProjectKey,
        query: newTradersQuery,
        responses: { 200: { description: 'Its new traders', schema: newTradersSchema }, 404: { description: 'AFFILIATE_NOT_FOUND' } },
      },
      async ({ query, caller }) => {
        const [affiliate, levels] = await figures(caller.projectId, query.user_identifier, figuresRange(query, clock.now()));
        return { status: 200, body: presentNewTraders(affiliate, levels) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/affiliate-portal/referral-tree',
        operationId: 'getReferralTreeSdk',
        summary: 'An affiliate and its referral tree to four levels, with their figures (Fuul.getReferralTree)',
        description:
          'The root is the affiliate (all-time volume, revenue, and `traders`: its referred users that converted); its children are ' +
          `the users it referred, highest volume first, at most ${MAX_PAGE_SIZE}, each with its own volume and revenue attributed to ` +
          'the affiliate, then the affiliates it referred beyond them. A child that is itself an affiliate is shown as one ' +
          '(`project_affiliate_id`, its own all-time figures and `traders`) with its downline below it, down to level 4 ' +
          '(docs/claims.md#referral-levels): below level 1 the nodes are affiliates only (at most 200 in the whole tree). ' +
          notFound,
        tags,
        auth: anyProjectKey,
        query: treeQuery,
        responses: { 200: { description: 'The tree', schema: referralTreeSchema }, 404: { description: 'AFFILIATE_NOT_FOUND' } },
      },
      async ({ query, caller }) => {
        const [[affiliate, levels], referred, tree] = await Promise.all([
          figures(caller.projectId, query.user_identifier, {}),
          clients.agency.listAffiliateReferrals({
            projectId: caller.projectId,
            user: affiliateOf(query.user_identifier),
            sortBy: ReferredUserSort.VOLUME_USD,
            page: { page: 1, pageSize: MAX_PAGE_SIZE },
          }),
          clients.agency.getReferralTree({ projectId: caller.projectId, user: affiliateOf(query.user_identifier) }),
        ]);
        return { status: 200, body: presentReferralTree(affiliate, levels, referred.results, tree) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/affiliate-portal/stats-breakdown',
        operationId: 'getStatsBreakdownSdk',
        summary: 'An affiliate’s figures per day, week or month (Fuul.getStatsBreakdown)',
        description:
          'Every bucket (`group_by`: UTC day, ISO week from Monday, calendar month) that meets the range, oldest first, dated by its ' +
          'first day (which may lie before `from`) and holding only the range’s conversions (of `conversion_name` when given): its ' +
          'volume (r1; r2 and r3 from the upline frozen on each conversion, docs/claims.md#referral-levels), revenue, attributions, distinct converting users and earnings in one currency (`currency_id`, ' +
          'else the first of the affiliate’s earnings by name) in whole units. The range: `date_range` 7d or 30d (the last 7 or 30 ' +
          'UTC days up to today; 30d when nothing is given), MTD, QTD, or custom (`from`, required, to `to`, default today; also ' +
          'when `from` or `to` come without `date_range`), at most 366 days. 400 for `from` after `to`, a longer range, `from`/`to` ' +
          'with another preset, or `conversion_external_id`. ' +
          notFound,
        tags,
        auth: anyProjectKey,
        query: breakdownQuery,
        responses: { 200: { description: 'Its buckets', schema: breakdownSchema }, 404: { description: 'AFFILIATE_NOT_FOUND' } },
      },
      async ({ query, caller }) => {
        if (query.conversion_external_id !== undefined) throw invalid('conversion_external_id', 'conversions are named here: use conversion_name');
        const range = breakdownRange(query, clock.now());
        const stats = await clients.agency.getAffiliateStats({
          projectId: caller.projectId,
          user: affiliateOf(query.user_identifier),
          from: range.from,
          to: range.to,
          groupBy: PERIODS[query.group_by],
          conversionName: query.conversion_name,
        });
        return { status: 200, body: presentBreakdown(stats, query.currency_id) };
      },
    ),
    ...(['qualified-user-bonus', 'high-volume-taker-bonus'] as const).map((program) =>
      defineRoute(
        {
          method: 'get',
          path: `/api/v1/affiliate-portal/${program}`,
          operationId: program === 'qualified-user-bonus' ? 'getQualifiedUserBonusSdk' : 'getHighVolumeTakerBonusSdk',
          summary: `Not offered: a bonus program of Fuul’s own (Fuul.${program === 'qualified-user-bonus' ? 'getQualifiedUserBonus' : 'getHighVolumeTakerBonus'})`,
          description: 'Always 404 NOT_OFFERED in the standard error body: this program is Fuul’s, not a project’s, and is not offered here.',
          tags,
          auth: anyProjectKey,
          responses: { 404: NOT_OFFERED },
        },
        async () => {
          throw new HttpError(404, 'NOT_OFFERED', `${program} is a program of Fuul’s own and is not offered here`);
        },
      ),
    ),
  ];
}
