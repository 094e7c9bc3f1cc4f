import { z } from 'zod';
import { AffiliateSort, AffiliateStatus, SortOrder } from '../../../gen/referral/agency/v1/enums';
import { EffectiveTaxStatus } from '../../../gen/referral/tax/v1/enums';
import {
  AFFILIATE_LIST_CONVERSION_FILTER,
  AGENCY_TEXT_LIMITS,
  MAX_AUDIENCE_FILTER_IDS,
  REFERRAL_CODE_RULES,
  USER_REBATE_RATE_RULES,
} from '../../../services/rules/contract-limits';
import { rebateRateToBps } from '../../../services/rules/rebate-rate';
import { enumNames } from '../../../services/rules/enums';
import { canonicalUuid } from '../../../services/rules/ids';
import { IDENTIFIER_TYPES } from '../../../services/rules/identifiers';
import { listSchema, pageQuery } from '../../http/list';
import { identifierPrefix, identifierTypeQuery, resourceId, userIdentifier } from '../../http/params';

/**
 * HTTP shapes of the agency API (snake_case): affiliates, codes and referrals; the gRPC contract is
 * proto/referral/agency. The service checks every rule again (code format and uniqueness, country
 * list, name length): these shapes refuse what is malformed and document what is accepted.
 */
export const timestamp = z.string().describe('ISO-8601 UTC');
export const affiliateStatuses = z.enum(enumNames(AffiliateStatus));
/** Made canonical here, at the edge (gateway/http/params.ts). */
export const identifier = userIdentifier(z.string().min(1).max(512));
export const identifierType = z.string().min(1).max(64).describe(IDENTIFIER_TYPES.join(', '));
export const code = z
  .string()
  .max(64)
  .describe(
    `${REFERRAL_CODE_RULES.minLength} to ${REFERRAL_CODE_RULES.maxLength} of A-Z a-z 0-9 _ -; unique in the project whatever its letter case`,
  );
export const region = z.string().max(8).describe('ISO 3166-1 alpha-2 country code (any letter case), e.g. US, DE, BR');
export const name = z
  .string()
  .max(AGENCY_TEXT_LIMITS.nameLength * 2)
  .describe(`1 to ${AGENCY_TEXT_LIMITS.nameLength} characters`);

/** A user rebate rate as the @fuul/sdk writes it: a fraction (0.05 is 5%) of the affiliate's own reward. */
const rebateRate = z
  .number()
  .describe(`The share of the affiliate's own reward that goes to the users it referred through the code, 0 to ${USER_REBATE_RATE_RULES.maxRate}`);

/**
 * A rebate rate in a request: a number from 0 to 0.2 with at most two decimals, read as basis points
 * (0 to 2,000) for the service.
 */
export const rebateRateInput = z
  .number()
  .transform((rate, ctx) => {
    const bps = rebateRateToBps(rate);
    if (bps === undefined) {
      ctx.addIssue({ code: 'custom', message: `must be a number from 0 to ${USER_REBATE_RATE_RULES.maxRate} with at most two decimals` });
      return z.NEVER;
    }
    return bps;
  })
  .describe(`A number from 0 to ${USER_REBATE_RATE_RULES.maxRate} with at most ${USER_REBATE_RATE_RULES.decimals} decimals (0.05 is 5%)`);

export const affiliateCodeSchema = z.object({
  code: z.string().describe('As registered (its letter case kept)'),
  uses: z.number().int().describe('Users referred with it'),
  created_at: timestamp,
  rebate_rate: rebateRate.nullable().describe('The user rebate rate of the code (0 to 0.2); null: none'),
  clicks: z
    .number()
    .int()
    .nullable()
    .describe('Clicks of the code (one per tracking id and UTC day); counted by the affiliate’s GET, null in lists and in the answers of writes'),
});

/** A code as the @fuul/sdk's AffiliateCodeWithStats. */
const sdkAffiliateCodeSchema = z.object({
  code: z.string().describe('As registered (its letter case kept)'),
  created_at: timestamp,
  uses: z.number().int().describe('Users referred with it'),
  clicks: z.number().int().describe('Clicks of the code: one per tracking id and UTC day of a pageview naming it'),
  total_users: z.number().int().describe('Users referred through the code (equal to `uses`: a use is a referral)'),
  total_earnings: z
    .number()
    .describe(
      'The affiliate’s payouts for the conversions of the users referred through the code, net of reversals, in whole units of each ' +
        'payout currency, summed (USD when the project pays in a USD stablecoin); a currency whose details are not known yet is left out',
    ),
  rebate_rate: rebateRate.nullable().describe('The user rebate rate of the code (0 to 0.2); null: none'),
});

const affiliateRefSchema = z.object({ id: z.string(), identifier: z.string(), identifier_type: z.string() });
const tierSchema = z.object({ id: z.string().describe('The tier’s audience segment id'), name: z.string(), rank: z.number().int() });
const sdkTierSchema = tierSchema.extend({
  slug: z.string().describe('The tier’s name in lower case, each run of other characters than a-z 0-9 a -'),
});

export const affiliateSchema = z.object({
  id: z.string(),
  identifier: z.string(),
  identifier_type: z.string(),
  name: z.string(),
  region: z.string().nullable().describe('ISO 3166-1 alpha-2'),
  status: affiliateStatuses.describe(
    'A suspended affiliate earns nothing for conversions while suspended, and its codes refer nobody; a flagged one still earns, ' +
      'but its new payouts wait for review until it is unflagged',
  ),
  suspended_at: timestamp.nullable().describe('While suspended: since when'),
  suspension_reason: z.string().nullable(),
  flagged_at: timestamp.nullable().describe('While flagged: since when (the first flag of the period)'),
  flag_reason: z
    .string()
    .nullable()
    .describe('While flagged: the first flag’s reason (never shown to the affiliate’s own wallet: null in the portal)'),
  codes: z.array(affiliateCodeSchema).describe('Oldest first'),
  master: affiliateRefSchema.nullable().describe('The master affiliate it is bound to'),
  is_master: z.boolean(),
  current_tier: tierSchema.nullable().describe('The tier its metrics qualify it for'),
  active_tier: tierSchema.nullable().describe('The tier in force: the higher of the current and a protected one'),
  tier_protection: z
    .object({ tier_id: z.string(), expires_at: timestamp, days_remaining: z.number().int() })
    .nullable()
    .describe('Days remaining of a protection period (1 to 365)'),
  joined_at: timestamp,
  updated_at: timestamp,
});

const usd = z.string().describe('USD, an exact decimal string');
export const earningSchema = z.object({
  currency_address: z.string().nullable().describe('null only while the agency has not learnt the currency yet (a rebuild fills it)'),
  currency_chain_id: z
    .number()
    .int()
    .nullable()
    .describe('The currency’s EVM chain id, a JSON number as in the currencies (null until the currency is known)'),
  currency_name: z.string().nullable(),
  currency_decimals: z.number().int().nullable(),
  amount: z.string().describe('Integer base units of the currency, a decimal string'),
});

export const affiliateListItemSchema = affiliateSchema.extend({
  tax_status: z.enum(enumNames(EffectiveTaxStatus)).describe('The affiliate’s effective tax status (see the tax endpoints)'),
  volume_usd: usd.describe('Total volume of the conversions of the users it referred'),
  revenue_usd: usd.describe('Total revenue of the conversions of the users it referred'),
  conversions: z.number().int().describe('Conversions of the users it referred (processed and no_terms)'),
  end_users: z.number().int().describe('Every user it referred (unique users brought in), whether or not they converted'),
  converting_users: z.number().int().describe('Of its end users, those with at least one conversion attributed to it'),
  referred_volume_usd: usd.describe('A master’s: the volume its sub-affiliates brought while bound to it (not its own)'),
  clicks: z
    .number()
    .int()
    .describe(
      'Clicks of its codes, all time (one per code, tracking id and UTC day). Its conversion rate, as the dashboard shows it, is ' +
        '`end_users` ÷ `clicks` (none without clicks)',
    ),
  earnings: z.array(earningSchema).describe('Its affiliate_payout movements, per currency'),
  agency_earnings: z.array(earningSchema).describe('A master’s agency_payout movements, per currency'),
  tier_protection_days_remaining: z.number().int().nullable().describe('Days left of a tier protection (1 to 365), null without one'),
});
export const affiliateListSchema = listSchema(affiliateListItemSchema);

export const createAffiliateBody = z.strictObject({
  identifier,
  identifier_type: identifierType,
  name,
  region: region.nullable().optional(),
  code: code.optional().describe('The affiliate’s first code'),
});

export const updateAffiliateBody = z.strictObject({
  name: name.optional(),
  region: region.nullable().optional().describe('null clears it'),
});

export const suspendBody = z.strictObject({
  reason: z
    .string()
    .max(AGENCY_TEXT_LIMITS.reasonLength * 2)
    .describe(`Why (1 to ${AGENCY_TEXT_LIMITS.reasonLength} characters); kept in the status history`),
});

export const flagBody = z.strictObject({
  reason: z
    .string()
    .max(AGENCY_TEXT_LIMITS.reasonLength * 2)
    .describe(`Why (1 to ${AGENCY_TEXT_LIMITS.reasonLength} characters); kept in the status history. Flagging again keeps the first reason`),
});

export const codeBody = z.strictObject({ code });

export const affiliateQuery = z.object({
  identifier_type: identifierTypeQuery.default('evm_address').describe('The identifier’s type; evm_address when left out'),
});

export const affiliateListQuery = z.object({
  ...pageQuery,
  status: affiliateStatuses.optional(),
  region: region.optional(),
  q: identifierPrefix(z.string().max(200))
    .optional()
    .describe(
      'A prefix of the identifier or of the name (the name’s letter case ignored). An identifier is matched as it is stored: a ' +
        'wallet or email in any letter case (whole, or its start) finds its lowercase identifier; the start of a solana, XRPL or ' +
        'Stellar address is matched as typed',
    ),
  audience: resourceId.optional().describe('Members of this audience segment (its id)'),
  audience_ids: z
    .string()
    .max(64 * MAX_AUDIENCE_FILTER_IDS)
    .optional()
    .transform((value) =>
      value === undefined
        ? []
        : value
            .split(',')
            .map((id) => canonicalUuid(id.trim()))
            .filter((id) => id !== ''),
    )
    .describe(`Members of any of these segments: ids separated by commas, at most ${MAX_AUDIENCE_FILTER_IDS}`),
  conversions: z
    .string()
    .max((AFFILIATE_LIST_CONVERSION_FILTER.nameLength + 1) * AFFILIATE_LIST_CONVERSION_FILTER.maxNames)
    .optional()
    .transform((value) => (value === undefined ? [] : value.split(',').map((name) => name.trim())))
    .pipe(
      z
        .array(z.string().min(1, 'an empty conversion name').max(AFFILIATE_LIST_CONVERSION_FILTER.nameLength))
        .max(AFFILIATE_LIST_CONVERSION_FILTER.maxNames, `at most ${AFFILIATE_LIST_CONVERSION_FILTER.maxNames} conversion names`),
    )
    .describe(
      `Affiliates with at least one conversion of any of these names: names separated by commas, at most ${AFFILIATE_LIST_CONVERSION_FILTER.maxNames}`,
    ),
  sort_by: z.enum(enumNames(AffiliateSort)).default('joined_at').describe('joined_at (default) or a metric; ties are broken by id'),
  order: z.enum(enumNames(SortOrder)).default('desc').describe('desc (default) or asc'),
});

export const rebuildMetricsSchema = z.object({
  listed: z.number().int().describe('Paid conversions the claim service listed'),
  restored: z.number().int().describe('Of those, conversions the projection did not have (lost events, or events not applied yet)'),
  restored_reversals: z
    .number()
    .int()
    .describe('Reversals of those conversions the projection had not applied (lost events, or events not applied yet); each is applied once'),
  conversions: z.number().int().describe('Conversions the projection holds now'),
  attributed: z.number().int().describe('Of those, attributed to an affiliate'),
});

export const referralBody = z.strictObject({ user_identifier: identifier, user_identifier_type: identifierType, code });

export const referralSchema = z.object({
  user_identifier: z.string(),
  user_identifier_type: z.string(),
  affiliate: z.object({ id: z.string(), identifier: z.string() }),
  code: z.string().describe('The code used, as its affiliate registered it'),
  referred_at: timestamp,
});

/** How a wallet's signature says which key signed and where a contract wallet lives (docs/affiliates.md#signatures). */
const signatureContext = {
  signature_public_key: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      'solana_address and stellar_address: the signing ed25519 key (base58, G… strkey, hex or base64); optional, and must be the address’s own',
    ),
  account_chain_id: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('evm_address: the chain of a contract wallet (EIP-1271), which must be in the gateway’s CHAIN_RPC_URLS'),
};

/** The @fuul/sdk's createAffiliateCode body (its `name` is the code). */
export const sdkCreateAffiliateBody = z.strictObject({
  address: identifier.describe('The wallet: an evm_address, solana_address or stellar_address'),
  identifier_type: identifierType
    .default('evm_address')
    .describe('evm_address, solana_address or stellar_address: the wallets whose signatures are checked'),
  name: name.optional().describe('The affiliate’s name; the code when left out'),
  code,
  signature: z
    .string()
    .max(1_000)
    .describe(
      'The wallet’s signature of the configured message (AFFILIATE_CODE_MESSAGE_TEMPLATE) with {code} replaced (docs/affiliates.md#signatures)',
    ),
  ...signatureContext,
  user_rebate_rate: rebateRateInput.nullish().describe('The code’s user rebate rate (0 to 0.2, at most two decimals); none when left out'),
});

/** The @fuul/sdk's updateAffiliateCode body (POST /affiliates/:user_identifier). */
export const sdkUpdateAffiliateCodeBody = z.strictObject({
  code: code.describe('The new code'),
  user_identifier: identifier.optional().describe('The affiliate, as in the path (the SDK sends both)'),
  identifier_type: identifierType.default('evm_address').describe('The affiliate’s type; evm_address when left out'),
  signature: z
    .string()
    .max(1_000)
    .describe(
      'The affiliate’s signature of AFFILIATE_CODE_UPDATE_MESSAGE_TEMPLATE with {code} replaced by the new code (docs/affiliates.md#signatures)',
    ),
  ...signatureContext,
});

/** The @fuul/sdk's updateRebateRate body (POST /affiliates/:user_identifier/rebate-rate). */
export const sdkUpdateRebateRateBody = z.strictObject({
  identifier_type: identifierType.default('evm_address').describe('The affiliate’s type; evm_address when left out'),
  code: code.describe('One of the affiliate’s codes (letter case ignored)'),
  signature: z
    .string()
    .max(1_000)
    .describe(
      'The affiliate’s signature of AFFILIATE_REBATE_MESSAGE_TEMPLATE with {code} and {rate} replaced by the code and the rate as sent (docs/affiliates.md#signatures)',
    ),
  ...signatureContext,
  source_project_id: z.string().max(64).nullish().describe('Accepted for the SDK; the project is always the API key’s'),
  rebate_rate: rebateRateInput,
});

/** What updateRebateRate answers (the SDK reads nothing of it). */
export const sdkCodeRebateRateSchema = z.object({
  code: z.string().describe('The code, as registered'),
  rebate_rate: rebateRate.nullable(),
});

/** An admin sets (null: clears) a code's user rebate rate. */
export const codeRebateRateBody = z.strictObject({ rebate_rate: rebateRateInput.nullable() });

export const sdkCreatedAffiliateSchema = z.object({
  id: z.string(),
  name: z.string(),
  code: z.string(),
  user_identifier: z.string(),
  user_identifier_type: z.string(),
  region: z.string().nullable(),
  updated_at: timestamp,
});

export const sdkAffiliateSchema = z.object({
  id: z.string(),
  name: z.string(),
  user_identifier: z.string(),
  user_identifier_type: z.string(),
  region: z.string().nullable(),
  codes: z.array(sdkAffiliateCodeSchema).describe('Oldest first'),
  current_tier: sdkTierSchema.nullable().describe('The tier the affiliate’s memberships qualify it for; null: none'),
  updated_at: timestamp,
});

export const userQuery = z.object({ user_identifier: identifier, user_identifier_type: identifierTypeQuery });

export const useCodeBody = z.strictObject({
  signature: z.string().max(1_000).describe('The user’s signature of signature_message (docs/affiliates.md#signatures)'),
  signature_message: z.string().min(1).max(2_000).describe('Any message that names the code (letter case ignored)'),
  chain_id: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      'evm_address: the chain of a contract wallet (EIP-1271), which must be in the gateway’s CHAIN_RPC_URLS; a key’s own signature needs none',
    ),
});

export const referrerSchema = z.object({
  user_identifier: z.string(),
  referrer_identifier: z.string().nullable(),
  referrer_name: z.string().nullable(),
  referrer_code: z.string().nullable().describe('The referrer’s oldest code'),
  referrer_codes: z.array(z.string()).describe('All the referrer’s codes, oldest first'),
  referred_at: timestamp.nullable(),
  referrer_user_rebate_rate: rebateRate.nullable().describe('The user rebate rate of the code the user was referred through; null: none'),
});
