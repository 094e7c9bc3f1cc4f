import { z } from 'zod';
import { ReferredUserSort } from '../../../gen/referral/agency/v1/enums';
import { HISTORY_TYPES } from '../../../services/rules/affiliate-history';
import { enumNames } from '../../../services/rules/enums';
import { listSchema, pageQuery } from '../../http/list';
import { AFFILIATE_STATS_DAYS } from '../../../services/rules/contract-limits';
import { affiliateListItemSchema, affiliateQuery, code, earningSchema, timestamp } from './agency.schemas';

/**
 * HTTP shapes of an affiliate's detail view (§2.9): the affiliate with its audiences, badges and
 * tax status; its history; the users it referred; the figures its portal shows it. The gRPC contract is proto/referral/agency/v1/activity.proto.
 */
const usd = z.string().describe('USD, a decimal string');

/** One referral level's all-time figures (docs/claims.md#referral-levels): the admin detail's tree and the portal's stats carry them. */
const levelFiguresSchema = z.object({
  level: z.number().int().describe('1 to 4: level 1 the users it referred itself, level n those n-1 affiliates below it referred'),
  volume_usd: usd.describe('Its all-time volume at this level (net of reversals), USD'),
  revenue_usd: usd,
  conversions: z.number().int().describe('Counted conversions at this level'),
  earnings: z.array(earningSchema).describe('What it was paid at this level, per currency'),
});

/** The affiliate as the list shows it (figures, earnings, tax status), and what only the detail carries. */
export const affiliateDetailSchema = affiliateListItemSchema.extend({
  audiences: z
    .array(z.object({ id: z.string(), name: z.string() }))
    .describe('The audience segments it is a member of (static or dynamic), from the audience service'),
  badges: z
    .array(z.object({ audience_id: z.string(), name: z.string(), description: z.string().nullable(), image: z.string().nullable() }))
    .describe('The badges of those segments'),
  referral_tree: z
    .object({
      levels: z
        .array(
          levelFiguresSchema.extend({
            affiliates: z.number().int().describe('Affiliates at this level of its downline (all of them)'),
          }),
        )
        .describe('Levels 1 to 4, in order'),
      nodes: z
        .array(
          z.object({
            affiliate_id: z.string(),
            identifier: z.string(),
            identifier_type: z.string(),
            parent_affiliate_id: z.string().describe('The affiliate that referred its user (this affiliate at level 1)'),
            level: z.number().int(),
            volume_usd: usd.describe('Its own all-time level-1 volume'),
            revenue_usd: usd,
            converting_users: z.number().int(),
            end_users: z.number().int(),
          }),
        )
        .describe('The affiliates of its downline by level, then highest volume first, at most 200'),
      truncated: z.boolean().describe('More nodes than listed (the counts per level are of all of them)'),
    })
    .describe('Its referral tree to four levels (docs/claims.md#referral-levels)'),
  links: z
    .object({
      history: z.string(),
      referrals: z.string().describe('Its referral tree: the users it referred, with their figures'),
      sub_affiliates: z.string().nullable().describe('A master’s sub-affiliates with their figures (null for an affiliate that is no master)'),
    })
    .describe('Paths of the detail view’s lists (paged, standard list shape)'),
});

const historyDescription = Object.entries(HISTORY_TYPES)
  .map(([type, meaning]) => `\`${type}\`: ${meaning}`)
  .join('; ');

export const historyItemSchema = z.object({
  type: z.enum(Object.keys(HISTORY_TYPES) as [keyof typeof HISTORY_TYPES, ...Array<keyof typeof HISTORY_TYPES>]).describe(historyDescription),
  at: timestamp,
  data: z.record(z.string(), z.unknown()).describe('The entry’s facts; the fields of each type are listed under `type`'),
});
export const historyListSchema = listSchema(historyItemSchema);

export const historyQuery = affiliateQuery.extend(pageQuery);

export const referralsQuery = affiliateQuery.extend({
  ...pageQuery,
  sort_by: z
    .enum(enumNames(ReferredUserSort))
    .optional()
    .describe('referred_at (default): newest referral first; volume_usd, revenue_usd, conversions: highest first'),
});

export const referredUserSchema = z.object({
  identifier: z.string(),
  identifier_type: z.string(),
  code: z.string().describe('The code it was referred with'),
  referred_at: timestamp,
  volume_usd: usd.describe('Volume of its conversions attributed to this affiliate'),
  revenue_usd: usd,
  conversions: z.number().int(),
});
export const referredUserListSchema = listSchema(referredUserSchema);

const utcDay = z.iso.date().describe('A UTC day, YYYY-MM-DD');

export const statsQuery = z.object({
  from: utcDay.optional().describe(`First day of the series (UTC); default ${AFFILIATE_STATS_DAYS.default - 1} days before \`to\``),
  to: utcDay.optional().describe(`Last day of the series (UTC), at most ${AFFILIATE_STATS_DAYS.max} days after \`from\`; default today`),
});

/** A date of a stats query as the instant its UTC day begins. */
export const dayStart = (date: string | undefined) => (date === undefined ? undefined : new Date(`${date}T00:00:00.000Z`));

export const clicksQuery = affiliateQuery.extend({
  ...statsQuery.shape,
  code: code.optional().describe('One of the affiliate’s codes (any letter case); all its codes when left out'),
});

export const affiliateClicksSchema = z.object({
  series: z
    .array(
      z.object({
        date: z.string().describe('The UTC day, YYYY-MM-DD'),
        clicks: z.number().int().describe('Clicks that day (one per code, tracking id and UTC day)'),
      }),
    )
    .describe('Every UTC day of [`from`, `to`], oldest first; a day without clicks reads zero'),
});

const dailyFiguresSchema = z.object({
  date: z.string().describe('The UTC day, YYYY-MM-DD'),
  volume_usd: usd.describe('Volume of that day’s conversions of the users it referred'),
  revenue_usd: usd,
  conversions: z.number().int(),
  referred_volume_usd: usd.describe('A master’s: volume of that day’s conversions of its sub-affiliates while bound to it'),
  earnings: z.array(earningSchema).describe('Its affiliate_payout movements of that day, per currency'),
  agency_earnings: z.array(earningSchema).describe('A master’s agency_payout movements of that day, per currency'),
});

export const affiliateStatsSchema = z.object({
  volume_usd: usd.describe('All time: volume of the conversions of the users it referred (as the affiliate list shows it)'),
  revenue_usd: usd.describe('All time'),
  conversions: z.number().int().describe('All time (processed and no_terms)'),
  end_users: z.number().int().describe('All time: every user it referred, whether or not they converted (as the affiliate list shows it)'),
  converting_users: z.number().int().describe('All time: of its end users, those with at least one conversion attributed to it'),
  referred_volume_usd: usd.describe('All time, a master’s: the volume its sub-affiliates brought while bound to it (not its own)'),
  earnings: z.array(earningSchema).describe('All time: its affiliate_payout movements, per currency'),
  agency_earnings: z.array(earningSchema).describe('All time: a master’s agency_payout movements, per currency'),
  series: z.array(dailyFiguresSchema).describe('Every UTC day of [from, to], oldest first; a day without conversions reads zero'),
});

/** The wallet's own figures in its portal: the stats, and what it earned at each referral level. */
export const ownAffiliateStatsSchema = affiliateStatsSchema.extend({
  levels: z
    .array(levelFiguresSchema)
    .describe('All time: levels 1 to 4, in order (level 1 its own referred users, 2..4 the conversions whose frozen upline had it there)'),
});
