import { z } from 'zod';
import { listSchema, pageQuery } from '../../http/list';
import { identifierTypeQuery, userIdentifier } from '../../http/params';
import { currencyRefSchema } from './claim.schemas';
import { windowBound } from './date-window';

/**
 * HTTP shapes of the Fuul SDK's payouts queries (getUserPayoutsByConversion, getPayoutsByReferrer) and
 * incentives (getConversions / getIncentives, getIncentivesByTier): the paths, query names and answer
 * keys are the SDK's (node_modules/@fuul/sdk/dist/types/types/api.d.ts), with ours beside them where the
 * SDK's number would lose an amount's base units.
 */
const timestamp = z.string().describe('ISO-8601 UTC');

export const userQuery = {
  user_identifier: userIdentifier(z.string().min(1).max(512))
    .optional()
    .describe('The user: required with an API key; with a wallet session, its own address or left out'),
  user_identifier_type: identifierTypeQuery.optional().describe('The identifier’s type; evm_address when left out'),
  identifier_type: identifierTypeQuery.optional().describe('The same as user_identifier_type (the name the Fuul SDK sends)'),
  project_id: z
    .string()
    .max(64)
    .optional()
    .describe('With a wallet session token: the project it acts in (required). With an API key: the key’s own project, if given'),
};

export const payoutsByConversionQuery = z.object({
  ...pageQuery,
  ...userQuery,
  type: z
    .enum(['onchain-currency', 'point'])
    .default('onchain-currency')
    .describe('onchain-currency: the movements in the project’s chain currencies; point: its points'),
  from: windowBound.optional().describe('Only movements written from this UTC day (YYYY-MM-DD) or instant on'),
  to: windowBound.optional().describe('Only movements written up to this UTC day (inclusive) or instant'),
  group_by: z.string().max(64).optional().describe('Accepted and not used: the results are always per conversion name, side and currency'),
});

export const payoutByConversionSchema = z.object({
  is_referrer: z.boolean().describe('true: earned by referring (affiliate_payout, agency_payout); false: as the converting user'),
  total_amount: z.string().describe('Base units, as a decimal string: the movements net of reversals, declined ones left out'),
  conversion_id: z.string().describe('The conversion name (the id GET /api/v1/conversions gives it)'),
  conversion_name: z.string(),
  currency_address: z.string().nullable().describe('The currency’s address; null for points'),
  chain_id: z.string().nullable().describe('The currency’s chain id as a decimal string (as the Fuul SDK types it here); null for points'),
  currency: currencyRefSchema,
});
export const payoutsByConversionSchema = listSchema(payoutByConversionSchema);

export const payoutsByReferrerQuery = z.object({
  ...userQuery,
  referrer_scope: z
    .enum(['active', 'all'])
    .default('active')
    .describe(
      'active: the referred users with volume or earnings in the window; all: also every other user the affiliate referred or was attributed',
    ),
  from_date: windowBound.optional().describe('A UTC day (YYYY-MM-DD) or instant: with to_date, only conversions that occurred within them'),
  to_date: windowBound.optional().describe('The window’s last UTC day (inclusive) or instant; required with from_date, and from_date with it'),
});

const earningSchema = z.object({
  currency: z.object({ address: z.string().nullable(), chainId: z.string().nullable() }),
  amount: z
    .number()
    .describe('Whole units of the currency (1.5 for 1,500,000 base units of a 6-decimal currency), a JSON number as the Fuul SDK types it'),
  amount_base_units: z.string().describe('The same amount exactly, in base units as a decimal string'),
});

const referrerPayoutSchema = z.object({
  volume: z.number().describe('USD: the volume of the user’s conversions attributed to the affiliate in the window'),
  direct_eligible_volume: z.number().describe('The same (one referral level)'),
  indirect_eligible_volume: z.number().describe('0: referral levels 2 to 4 do not exist yet'),
  earnings: z.array(earningSchema).describe('The affiliate’s affiliate_payout movements of those conversions, net of reversals, per currency'),
  total_commission_earned: z.array(earningSchema).describe('The same as earnings while there is one referral level'),
  date_joined: timestamp.nullable().describe('The user’s first attributed conversion (all time); null: none'),
  event_referrer_identifier: z.string().describe('The affiliate, as the request named it'),
  user_rebate_rate: z.number().nullable().describe('The rebate rate (0 to 1) of the user’s latest conversion; null: no conversion'),
  referral_code: z.string().nullable().describe('The code the user was referred with, else the one its latest conversion named'),
  user_identifier_type: z.string().describe('The referred user’s identifier type (the key is its identifier)'),
});

export const payoutsByReferrerSchema = z
  .array(z.record(z.string(), referrerPayoutSchema))
  .describe('One object per referred user, keyed by its identifier, by identifier');

export const conversionsQuery = z.object({
  user_identifier: userIdentifier(z.string().min(1).max(512))
    .optional()
    .describe('Sent by the Fuul SDK’s deprecated getConversions(params); not used'),
  identifier_type: identifierTypeQuery.optional().describe('Sent by the Fuul SDK’s deprecated getConversions(params); not used'),
});

const tierSchema = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  rank: z.number().int(),
  description: z.string().nullable(),
});

const payoutGroupSchema = z.object({
  id: z.string().describe('default, or the tier’s audience id'),
  name: z.string(),
  affiliate_amount: z.string().optional().describe('A fixed reward, base units'),
  affiliate_amount_percentage: z.number().optional().describe('A share of the conversion’s reward_base, in percent (basis points ÷ 100)'),
  end_user_amount: z.string().optional(),
  end_user_amount_percentage: z.number().optional(),
  affiliate2_amount: z.string().nullable().describe('Referral level 2’s fixed reward (base units); null: not fixed or not paid'),
  affiliate3_amount: z.string().nullable().describe('Referral level 3’s fixed reward (base units); null: not fixed or not paid'),
  affiliate4_amount: z.string().nullable().describe('Referral level 4’s fixed reward (base units); null: not fixed or not paid'),
  affiliate2_amount_percentage: z.number().nullable().describe('Referral level 2’s share of reward_base in percent; null: not a share or not paid'),
  affiliate3_amount_percentage: z.number().nullable().describe('Referral level 3’s share of reward_base in percent; null: not a share or not paid'),
  affiliate4_amount_percentage: z.number().nullable().describe('Referral level 4’s share of reward_base in percent; null: not a share or not paid'),
  audience: z.object({ id: z.string(), name: z.string() }).nullable().describe('The affiliate allowlist audience; null: none'),
  project_tier: tierSchema.nullable().describe('The tier this group pays; null: the default (an affiliate in no tier the terms name)'),
  payout_cap_enabled: z.boolean(),
  enduser_cap_enabled: z.boolean(),
  wallet_cap_enabled: z.boolean(),
  dynamic_referral_cap_enabled: z.boolean(),
});

const payoutTermSchema = z.object({
  id: z.string().describe('The conversion name (terms are one set per name)'),
  scheme: z.literal('pay-per-attribution'),
  tier_type: z.literal('audience'),
  conversion_id: z.string(),
  type: z.literal('onchain-currency'),
  calculation_strategy: z.enum(['fixed', 'variable']).nullable().describe('fixed: a fixed reward; variable: basis points of reward_base'),
  trigger_amount_source: z.null().describe('null: a variable reward is a share of the conversion’s reward_base, which the project sends'),
  base_currency: z.null(),
  payout_currency_address: z.string(),
  payout_currency_chain_id: z.number().int(),
  require_affiliate: z.boolean().describe('false: the converting user is paid whether anyone referred it or not'),
  require_approval: z.boolean(),
  referral_amount: z.string().optional().describe('The end user’s fixed reward, base units'),
  referrer_amount: z.string().optional().describe('The default affiliate fixed reward, base units'),
  referrer2_amount: z.string().optional().describe('Referral level 2’s default fixed reward, base units'),
  referrer3_amount: z.string().optional().describe('Referral level 3’s default fixed reward, base units'),
  referrer4_amount: z.string().optional().describe('Referral level 4’s default fixed reward, base units'),
  max_payout_amount: z.string().nullable().describe('Per-conversion cap, base units'),
  end_user_cap_amount: z.string().nullable(),
  end_user_cap_window_days: z.null().describe('null: the end-user cap holds for all time'),
  wallet_cap_amount: z.string().nullable().describe('Per-affiliate window cap, base units'),
  wallet_cap_window_days: z.number().int().nullable(),
  dynamic_referral_cap_multiplier: z.null(),
  payout_groups: z.array(payoutGroupSchema),
  payee_type: z.enum(['affiliate', 'end-user', 'both']),
});

export const incentiveSchema = z.object({
  id: z.string().describe('The conversion name'),
  external_id: z.number().int().describe('1-based position of the name among the project’s terms, oldest first'),
  name: z.string(),
  slug: z.string().describe('The name in lower case, each run of other characters than a-z 0-9 a -'),
  enabled: z.boolean(),
  triggers: z.array(z.unknown()).max(0).describe('Always empty: conversions are reported by the project’s backend, not triggered'),
  payout_terms: z.array(payoutTermSchema),
  created_at: timestamp,
  updated_at: timestamp,
});
export const incentivesSchema = z.array(incentiveSchema);

export const termsByTierQuery = z.object({
  tier_ids: z
    .string()
    .max(4096)
    .optional()
    .describe('Comma-separated tier (audience) ids, or `null` for the default bucket; left out: every tier and the default'),
});

const rateSchema = z.object({
  amount: z.string().nullable().describe('Base units (unit base_units) or basis points (unit bps); null: not paid (unit none)'),
  currency: z.string().nullable().describe('The currency’s address for a fixed reward; null otherwise'),
  unit: z.enum(['base_units', 'bps', 'none']),
});

export const termsByTierSchema = z.object({
  tiers: z.array(
    z.object({
      tier_id: z.string().nullable(),
      tier_name: z.string().nullable(),
      tier_description: z.string().nullable(),
      tier_slug: z.string().nullable(),
      tier_rank: z.number().int().nullable(),
      payout_terms: z.array(
        z.object({
          conversion_name: z.string(),
          payout_type: z.enum(['variable', 'fixed']),
          payee_type: z.enum(['affiliate', 'end-user', 'both']),
          is_multi_level: z.boolean().describe('true when this tier pays some referral level above 1 (affiliate2..affiliate4)'),
          affiliate_rate: rateSchema,
          affiliate2_rate: rateSchema,
          affiliate3_rate: rateSchema,
          affiliate4_rate: rateSchema,
          end_user_rate: rateSchema,
        }),
      ),
    }),
  ),
});
