import { z } from 'zod';

/** The fields of a listed affiliate the export writes (affiliateListItemSchema in the OpenAPI document). */
const tier = z.object({ id: z.string(), name: z.string(), rank: z.number().int() }).nullable();
const earning = z.object({
  currency_address: z.string().nullable(),
  currency_chain_id: z.number().int().nullable(),
  currency_name: z.string().nullable(),
  currency_decimals: z.number().int().nullable(),
  amount: z.string(),
});

export const listedAffiliate = z.object({
  id: z.string(),
  identifier: z.string(),
  identifier_type: z.string(),
  name: z.string(),
  region: z.string().nullable(),
  status: z.string(),
  suspended_at: z.string().nullable(),
  suspension_reason: z.string().nullable(),
  flagged_at: z.string().nullable(),
  flag_reason: z.string().nullable(),
  tax_status: z.string(),
  codes: z.array(z.object({ code: z.string() })),
  master: z.object({ id: z.string(), identifier: z.string() }).nullable(),
  is_master: z.boolean(),
  current_tier: tier,
  active_tier: tier,
  tier_protection_days_remaining: z.number().int().nullable(),
  joined_at: z.string(),
  updated_at: z.string(),
  // Money stays the exact decimal string the API sends: never a JavaScript number.
  volume_usd: z.string(),
  revenue_usd: z.string(),
  conversions: z.number().int(),
  end_users: z.number().int(),
  converting_users: z.number().int(),
  referred_volume_usd: z.string(),
  earnings: z.array(earning),
  agency_earnings: z.array(earning),
});
export type ListedAffiliate = z.output<typeof listedAffiliate>;

export const affiliatePage = z.object({
  results: z.array(listedAffiliate),
  total_results: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});
