import { z } from 'zod';
import { inferIdentifierType } from '../../../services/rules/identifiers';
import { resourceId } from '../../http/params';
import { identifier } from './agency.schemas';

/**
 * The query strings and answers of the @fuul/sdk's affiliate stats API (GET /api/v1/affiliate-portal/…,
 * node_modules/@fuul/sdk/dist/affiliate-portal/types): the SDK's names and shapes, USD and token
 * amounts as the numbers its types declare (display figures, not amounts to pay).
 */

/** The SDK sends the affiliate without its type: it is read as the first type it is valid for (inferIdentifierType). */
const affiliateIdentifier = identifier
  .refine((value) => inferIdentifierType(value) !== undefined, 'is no identifier of a known type (evm, sui, email, stellar, xrpl, solana)')
  .describe('The affiliate, without its type: an evm or sui address, an email, a stellar, xrpl or solana address');

const earningSchema = () =>
  z.object({
    amount: z.number().describe('Whole units of the currency (base units divided by its decimals)'),
    currency: z.string().describe('The currency’s name (its id while its details are not known yet)'),
  });
const earning = earningSchema();

/** A UTC day. */
const day = z.iso.date().describe('A UTC day, YYYY-MM-DD');

const thisMonth = z
  .enum(['true', 'false'])
  .optional()
  .transform((value) => value === 'true')
  .describe('true: the current UTC calendar month up to today (not with `from`/`to`)');

const conversionFilter = {
  conversion_name: z.string().min(1).max(200).optional().describe('Only the conversions of this name'),
  conversion_external_id: z
    .string()
    .max(40)
    .optional()
    .describe('Not offered: conversions are named here (use conversion_name); any value answers 400'),
};

export const figuresQuery = z.object({
  user_identifier: affiliateIdentifier,
  from: day.optional().describe('First UTC day of the figures; unbounded when left out'),
  to: day.optional().describe('Last UTC day of the figures; unbounded when left out'),
  this_month: thisMonth,
  ...conversionFilter,
});

/**
 * A list as the SDK's axios sends it (`statuses[]=Active&statuses[]=Paused`), an array parameter to
 * OpenAPI: the query parser reads one value as a string, made a list of one here.
 */
const listOf = <T extends z.ZodType<string>>(item: T) =>
  z.preprocess((value) => (typeof value === 'string' ? [value] : value), z.array(item).max(50).optional());

export const totalStatsQuery = z.object({
  'statuses[]': listOf(z.enum(['Active', 'Paused', 'Flagged', 'Terminated'])).describe(
    'Only affiliates of these statuses (Paused: suspended; Terminated: none here); every affiliate when left out',
  ),
  'regions[]': listOf(z.string().min(1).max(8)).describe(
    'Only affiliates whose region (the ISO 3166-1 code they carry) is one of these; All, or left out: every region',
  ),
  'audiences[]': listOf(resourceId).describe('Only members of any of these audience segments (their ids)'),
});

export const totalStatsSchema = z.object({
  total_affiliates: z.number().int(),
  active_affiliates: z.number().int(),
  suspended_affiliates: z.number().int().describe('Suspended (the SDK’s Paused)'),
  total_regions: z.number().int().describe('Distinct regions among them'),
  total_volume: z.number().describe('USD, all time'),
  total_revenue: z.number().describe('USD, all time'),
  total_attributions: z.number().int().describe('Counted conversions, all time'),
  total_referred_users: z.number().int().describe('Users they referred, converted or not'),
  total_earnings: z.array(earningSchema()).describe('Their affiliate payouts per currency, whole units'),
});

export const newTradersQuery = figuresQuery.omit({ conversion_name: true, conversion_external_id: true });

export const treeQuery = z.object({ user_identifier: affiliateIdentifier });

export const breakdownQuery = z.object({
  user_identifier: affiliateIdentifier,
  group_by: z.enum(['day', 'week', 'month']).describe('UTC days, ISO weeks (Monday first) or calendar months, each dated by its first day'),
  date_range: z
    .enum(['7d', '30d', 'MTD', 'QTD', 'custom'])
    .optional()
    .describe(
      '7d/30d: the last 7/30 UTC days up to today; MTD/QTD: since the month’s/quarter’s first day; custom (or left out with `from`): `from`..`to`; 30d when nothing is given',
    ),
  from: day.optional().describe('First UTC day (custom)'),
  to: day.optional().describe('Last UTC day (custom; default today), at most 366 days after `from`'),
  currency_id: resourceId.optional().describe('The payout currency whose earnings are summed; default the first of the affiliate’s earnings by name'),
  ...conversionFilter,
});

const identified = {
  user_identifier: z.string(),
  user_identifier_type: z.string(),
};

const tier = z.object({ id: z.string(), name: z.string(), rank: z.number().int(), slug: z.string() }).nullable();

export const sdkAffiliateStatsSchema = z.object({
  ...identified,
  total_earnings: z.array(earning).describe('Its payouts per currency in the range, every level summed'),
  referred_volume: z.number().describe('USD volume of its direct (L1) referred users’ conversions in the range'),
  r2_volume: z.number().describe('USD volume of the conversions whose frozen upline had it at level 2 (docs/claims.md#referral-levels)'),
  r3_volume: z.number(),
  r4_volume: z.number(),
  multilevel_volume: z.number().describe('r2 + r3 + r4'),
  total_volume: z.number(),
  end_user_volume: z.number().describe('The volume of the users it referred (its L1 volume)'),
  referred_revenue: z.number(),
  r2_revenue: z.number(),
  r3_revenue: z.number(),
  r4_revenue: z.number(),
  referred_attributions: z.number().int().describe('Counted conversions attributed to it in the range'),
  r1_earnings: z.array(earning),
  r2_earnings: z.array(earning),
  r3_earnings: z.array(earning),
  r4_earnings: z.array(earning),
  referred_users: z.number().int().describe('Distinct referred users with a counted conversion in the range'),
  active_referrers: z.number().int(),
  active_referred_users_r2: z.number().int(),
  active_referred_users_r3: z.number().int(),
  active_referred_users_r4: z.number().int(),
  total_referrers: z.number().int().describe('All time: every user it referred, converted or not'),
  assigned_referrers: z.number().int().describe('All time: every user it referred'),
  status: z.enum(['Active', 'Paused', 'Flagged', 'Terminated']).describe('Active, Paused (suspended) or Flagged'),
  region: z.string().nullable().describe('Always null: affiliates carry an ISO country here, not the SDK’s regions'),
  referral_codes: z.array(z.string()).describe('Its codes, oldest first'),
  effective_tier: tier,
  current_tier: tier,
});

export const paidVolumesSchema = z.object({
  ...identified,
  payout_eligible_l1_volume: z.number(),
  payout_eligible_l2_volume: z.number(),
  payout_eligible_l3_volume: z.number(),
  payout_eligible_l4_volume: z.number(),
  payout_eligible_l1_revenue: z.number(),
  payout_eligible_l2_revenue: z.number(),
  payout_eligible_l3_revenue: z.number(),
  payout_eligible_l4_revenue: z.number(),
  payout_eligible_l1_attributions: z.number().int(),
  payout_eligible_l2_attributions: z.number().int(),
  payout_eligible_l3_attributions: z.number().int(),
  payout_eligible_l4_attributions: z.number().int(),
  payout_eligible_total_volume: z.number(),
  payout_eligible_total_revenue: z.number(),
  payout_eligible_total_attributions: z.number().int(),
});

export const newTradersSchema = z.array(
  z.object({
    referrer_identifier: z.string(),
    total_new_traders: z.string().describe('Users whose first conversion attributed to it lies in the range (a decimal string)'),
  }),
);

const treeNode = {
  user_identifier: z.string(),
  project_affiliate_id: z.string().nullable().describe('The node’s affiliate id; null for a referred user'),
  traders: z.number().int().describe('Users under the node with a counted conversion'),
  total_volume: z.number().describe('USD, all time'),
  total_revenue: z.number().describe('USD, all time'),
};

/** A node `depth` levels above the tree's bottom (level 4): the SDK's recursive node, written out to its four levels. */
const treeNodeAt = (depth: number): z.ZodType =>
  z.object({
    ...treeNode,
    children: depth === 0 ? z.array(z.never()).describe('Empty: the tree ends at level 4') : z.array(treeNodeAt(depth - 1)),
  });

/** The affiliate and its referral tree to four levels (docs/claims.md#referral-levels). */
export const referralTreeSchema = treeNodeAt(4);

export const breakdownSchema = z.object({
  results: z.array(
    z.object({
      date: z.string().describe('The bucket’s first day, YYYY-MM-DD'),
      r1_volume: z.number(),
      r2_volume: z.number(),
      r3_volume: z.number(),
      revenue: z.number(),
      attributions: z.number().int(),
      referred_users: z.number().int(),
      earnings: z.number().describe('Whole units of `earnings_currency`'),
      earnings_currency: z.string().nullable().describe('The currency’s name; null when the affiliate has earned nothing'),
    }),
  ),
});
