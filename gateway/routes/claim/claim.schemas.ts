import { z } from 'zod';
import {
  CapKind,
  ClaimCheckStatus,
  ConversionStatus,
  CurrencyType,
  DecisionOutcome,
  LeaderboardUserType,
  MovementKind,
  MovementStatus,
  PendingReason,
  ReversedFrom,
  SubmissionOutcome,
} from '../../../gen/referral/claim/v1/enums';
import { MAX_CONVERSIONS_PER_BATCH } from '../../../services/rules/contract-limits';
import { enumNames } from '../../../services/rules/enums';
import { hinted } from '../../http/input-messages';
import { listSchema, pageQuery } from '../../http/list';
import { identifierTypeQuery, resourceId, userIdentifier } from '../../http/params';
import { windowBound } from './date-window';

/**
 * HTTP shapes of currencies, payout terms, conversions, movements and the payouts leaderboard
 * (snake_case); the gRPC contract is proto/referral/claim, whose enums every vocabulary here is
 * derived from. Amounts are decimal strings of base units, never JSON numbers. The service checks
 * every rule again: these shapes refuse what is malformed and document what is accepted.
 */
const timestamp = z.string().describe('ISO-8601 UTC');
const baseUnits = hinted(
  z
    .string()
    .regex(/^(0|[1-9][0-9]{0,77})$/, 'must be a whole number of base units written in decimal digits, as a string')
    .describe(
      'Base units of the currency (wei, lamports, ...), as a decimal string, e.g. "1500000000000000000"; at most 2^256 − 1 ' +
        '(115792089237316195423570985008687907853269984665640564039457584007913129639935, the most a voucher pays): past it, 400 AMOUNT_OUT_OF_RANGE',
    ),
  'base units as a decimal string',
);
const usd = z.string().max(64).describe('A non-negative USD amount as a decimal string, e.g. "1250.75"');
const address = z.string().max(64).describe('0x followed by 40 hex digits (any letter case; stored lowercase)');
const chainId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe('The EVM chain id, e.g. 1 (Ethereum), 8453 (Base)');

const currencyTypes = z.enum(enumNames(CurrencyType));
const conversionStatuses = z.enum(enumNames(ConversionStatus));
const movementKinds = z.enum(enumNames(MovementKind));
const movementStatuses = z.enum(enumNames(MovementStatus));
const pendingReasons = z.enum(enumNames(PendingReason));
const capKinds = z.enum(enumNames(CapKind));
/** A movement's payout status: the status of the claim check it is in, or, while it is in none, its own (pending, declined). */
const payoutStatuses = z
  .enum([...enumNames(ClaimCheckStatus), 'pending', 'declined', 'available'])
  .describe(
    'Where the claim check holding this movement stands; `pending` or `declined` while the movement is in no check; `available` for points credited to the points balance (points are in no check)',
  );
/** What a movement's status adds to it (the commission lifecycle). */
const movementStatusFields = {
  status: movementStatuses.describe(
    'pending: it waits (see pending_reason) and is in no claim check; available: it is in a claim check (points: in the user’s points balance); declined: an admin declined it, never paid',
  ),
  pending_reason: pendingReasons
    .nullable()
    .describe('Why a pending movement waits: hold (until available_at), approval (an admin’s decision), review; null unless pending'),
  available_at: timestamp.describe('When it becomes (or became) available: its processing time plus the payout terms’ hold_days'),
  reversed_amount: z
    .string()
    .describe('What reversals of its conversion took back from it (base units, "0" when none): its net is the amount less this'),
  capped_amount: z
    .string()
    .nullable()
    .describe('Base units the payout terms’ caps cut from it, never paid (its amount is what is left, possibly "0"); null when no cap cut it'),
  capped_by: capKinds.nullable().describe('The cap that cut it first (see the payout terms’ `caps`); null when no cap cut it'),
};
export const leaderboardUserTypes = z.enum(enumNames(LeaderboardUserType));

// ------------------------------------------------------------------ currencies

export const currencyBody = z.strictObject({
  chain_id: chainId.optional().describe('The EVM chain id, e.g. 1 (Ethereum), 8453 (Base); required but for a point currency, which has none'),
  address: address
    .optional()
    .describe(
      'The token contract (erc20), or 0x0000000000000000000000000000000000000000 (native); required but for a point currency, which has none',
    ),
  name: z.string().max(200).describe('1 to 100 characters, e.g. USDC, or the points’ name, e.g. XP'),
  decimals: z.number().int().min(0).max(77).describe('Decimals of one whole unit, e.g. 6 (USDC) or 18 (ETH); 0 for points (whole points)'),
  type: currencyTypes,
});

const currencyFields = {
  id: z.string(),
  chain_id: z.number().int().nullable().describe('The EVM chain id, a JSON number; null for a point currency'),
  address: z.string().nullable().describe('Lowercase 0x + 40 hex; null for a point currency'),
  name: z.string(),
  decimals: z.number().int(),
  type: currencyTypes,
};

export const currencySchema = z.object({ ...currencyFields, created_at: timestamp });
export const currencyListSchema = listSchema(currencySchema);

// ------------------------------------------------------------------ payout terms

export const rewardBody = z
  .union([
    z.strictObject({ fixed: baseUnits.describe('A fixed amount, in base units of the terms’ currency') }),
    z.strictObject({ bps: z.number().int().min(0).max(10_000).describe('Basis points of the conversion’s reward_base (floored)') }),
  ])
  .describe('{ "fixed": "<base units>" } or { "bps": 0..10000 }');

/** The rewards of referral levels 2..4 (docs/claims.md#referral-levels), on the terms and on each tier. */
const uplineRewardsBody = {
  affiliate2: rewardBody
    .nullable()
    .default(null)
    .describe('What level 2 earns: the affiliate that referred the referring affiliate (Fuul’s referrer2); null or absent: nothing'),
  affiliate3: rewardBody
    .nullable()
    .default(null)
    .describe('What level 3 earns: the affiliate that referred level 2 (referrer3); null or absent: nothing'),
  affiliate4: rewardBody
    .nullable()
    .default(null)
    .describe('What level 4 earns: the affiliate that referred level 3 (referrer4); null or absent: nothing'),
};

export const payoutTermsBody = z.strictObject({
  currency_id: resourceId.describe('A currency of the project'),
  end_user: rewardBody.nullable().default(null).describe('What the converting user earns; null or absent: nothing'),
  affiliate: rewardBody
    .nullable()
    .default(null)
    .describe('What the referring affiliate earns unless a tier below names its active tier; null or absent: nothing'),
  ...uplineRewardsBody,
  tiers: z
    .array(z.strictObject({ audience_id: resourceId.describe('A tier audience (segment) id'), affiliate: rewardBody, ...uplineRewardsBody }))
    .max(100)
    .default([])
    .describe(
      'The rewards while the referring affiliate’s active tier is the audience named: its own (affiliate) and its upline’s ' +
        '(affiliate2..affiliate4), replacing the terms’ rewards of every level (a level the tier leaves null is not paid)',
    ),
  end_user_allowlist_audience_id: resourceId
    .nullable()
    .default(null)
    .describe(
      'An audience of the project (static or dynamic): only converting users who are its members when the conversion is processed ' +
        'earn `end_user`; null or absent: every converting user may',
    ),
  affiliate_allowlist_audience_id: resourceId
    .nullable()
    .default(null)
    .describe(
      'An audience of the project (static or dynamic): only affiliates who are its members when the conversion is processed earn ' +
        'their reward, and their master affiliates the spread on it; null or absent: every affiliate may',
    ),
  hold_days: z
    .number()
    .int()
    .min(0)
    .max(365)
    .default(0)
    .describe(
      'Days each movement of a conversion paid under these terms waits (`pending`, reason `hold`) before it becomes `available` and ' +
        'enters an open claim check; 0 or absent: available at once',
    ),
  caps: z
    .strictObject({
      per_conversion: baseUnits
        .nullable()
        .default(null)
        .describe('No single movement of one conversion (the end user’s, the affiliate’s, the master’s spread) pays more; null or absent: no cap'),
      per_end_user: baseUnits
        .nullable()
        .default(null)
        .describe(
          'The most one end user earns (end_user_payout) under these terms, over its lifetime; pending and available movements count, ' +
            'declined ones do not; null or absent: no cap',
        ),
      per_affiliate_window: z
        .strictObject({
          amount: baseUnits.describe('The most, in base units'),
          days: z.number().int().min(1).max(365).describe('1 to 365: the window looks back this many days from each payment'),
        })
        .nullable()
        .default(null)
        .describe(
          'The most one affiliate earns (affiliate_payout) under these terms over the last `days` days (by when its movements were ' +
            'written); pending and available movements count, declined ones do not; null or absent: no cap',
        ),
    })
    .nullable()
    .default(null)
    .describe(
      'What these terms pay at most; each cap positive base units. What a cap cuts is recorded on the movement (`capped_amount`, ' +
        '`capped_by`: the first cap that cut it) and never paid later; a movement cut to nothing is still written, with amount "0". ' +
        'Null or absent: no caps',
    ),
  require_approval: z
    .boolean()
    .default(false)
    .describe(
      'true: each movement waits (`pending`, reason `approval`) until an admin approves it (POST /api/v1/projects/{projectId}/movements/approve) ' +
        'or declines it; false or absent: no approval needed',
    ),
});

export const rewardSchema = z.union([z.object({ fixed: z.string() }), z.object({ bps: z.number().int() })]);

const uplineRewardsSchema = {
  affiliate2: rewardSchema.nullable().describe('What referral level 2 earns (the affiliate that referred the referring one); null: nothing'),
  affiliate3: rewardSchema.nullable().describe('What referral level 3 earns; null: nothing'),
  affiliate4: rewardSchema.nullable().describe('What referral level 4 earns; null: nothing'),
};

export const payoutTermsSchema = z.object({
  conversion_name: z.string(),
  currency_id: z.string(),
  end_user: rewardSchema.nullable(),
  affiliate: rewardSchema.nullable(),
  ...uplineRewardsSchema,
  tiers: z.array(z.object({ audience_id: z.string(), affiliate: rewardSchema, ...uplineRewardsSchema })),
  end_user_allowlist_audience_id: z.string().nullable().describe('Only members of this audience earn the end-user reward; null: everyone may'),
  affiliate_allowlist_audience_id: z
    .string()
    .nullable()
    .describe('Only members of this audience earn the affiliate reward (and their masters the spread); null: everyone may'),
  hold_days: z.number().int().describe('Days a movement is held before it is available'),
  require_approval: z.boolean().describe('Whether movements wait for an admin’s approval'),
  caps: z
    .object({
      per_conversion: z.string().nullable().describe('The most one movement of a conversion pays; null: no cap'),
      per_end_user: z.string().nullable().describe('The most one end user earns under these terms, ever; null: no cap'),
      per_affiliate_window: z
        .object({ amount: z.string(), days: z.number().int() })
        .nullable()
        .describe('The most one affiliate earns under these terms over the last `days` days; null: no cap'),
    })
    .describe('What these terms pay at most (each null while off)'),
  created_at: timestamp,
  updated_at: timestamp,
});
export const payoutTermsListSchema = listSchema(payoutTermsSchema);

// ------------------------------------------------------------------ conversions

export const conversionBody = z.strictObject({
  id: z.string().min(1).max(128).describe('Your deduplication id, 1 to 128 characters, unique in the project (kept exactly as sent)'),
  name: z.string().max(200).describe('The conversion’s name; the payout terms of this name pay it'),
  user: z.strictObject({
    identifier: userIdentifier(z.string().max(512)).describe('The converting user (an evm_address or email in any letter case is the same user)'),
    identifier_type: z.string().max(64),
  }),
  occurred_at: z.iso
    .datetime({ offset: true })
    .nullish()
    .describe(
      'When it happened (ISO-8601); absent: when it is received. From the project’s creation less CONVERSION_BACKFILL_DAYS (365 days ' +
        'by default) to 5 minutes past the service’s clock; outside, 400 OCCURRED_AT_OUT_OF_RANGE naming the bound',
    ),
  volume_usd: usd.nullish(),
  revenue_usd: usd.nullish(),
  reward_base: z
    .string()
    .max(80)
    .nullish()
    .describe('Base units that bps rewards are shares of, as a decimal string, at most 2^256 − 1 (past it, 400 AMOUNT_OUT_OF_RANGE); absent: 0'),
  referral_code: z.string().max(64).nullish().describe('Attributes the user to the code’s affiliate, if nobody referred the user yet'),
});
export type ConversionBody = z.output<typeof conversionBody>;

export const conversionBatchBody = z.strictObject({
  conversions: z
    .array(z.unknown().describe('A conversion, as POST /api/v1/conversions takes it'))
    .min(1)
    .max(MAX_CONVERSIONS_PER_BATCH)
    .describe(`1 to ${MAX_CONVERSIONS_PER_BATCH} conversions, each checked, accepted or refused alone`),
});

export const acceptedSchema = z.object({
  id: z.string(),
  status: conversionStatuses.describe('accepted when just stored; for a resubmission, where the stored conversion stands'),
});

const itemErrorSchema = z.object({
  status: z.number().int().describe('The HTTP status this conversion alone would have been refused with'),
  code: z.string(),
  message: z.string(),
  details: z.array(z.object({ field: z.string(), reason: z.string() })),
});

export const batchResultSchema = z.object({
  results: z.array(
    z.object({
      id: z.string().nullable().describe('The conversion’s id as sent (null when it had none)'),
      outcome: z.enum(enumNames(SubmissionOutcome)).describe('accepted: stored now; duplicate: stored before with the same body; refused: see error'),
      status: conversionStatuses.nullable(),
      error: itemErrorSchema.nullable(),
    }),
  ),
  accepted: z.number().int(),
  duplicates: z.number().int(),
  refused: z.number().int(),
});

const userFields = { user_identifier: z.string(), user_identifier_type: z.string() };
const affiliateSchema = z.object({ id: z.string(), ...userFields });

export const currencyRefSchema = z.object(currencyFields);

/** Whether a movement is a rebate (docs/claims.md#rebates). */
const rebateField = z
  .boolean()
  .describe(
    'true on an end_user_payout that is the referring affiliate’s rebate (its code’s rebate rate of its reward), taken from the ' +
      'affiliate_payout of the same conversion, never added to it',
  );

/** An affiliate_payout's referral level (docs/claims.md#referral-levels). */
const levelField = z
  .number()
  .int()
  .nullable()
  .describe('An affiliate_payout’s referral level: 1 the referring affiliate, 2 to 4 its upline; null on other kinds');

export const conversionMovementSchema = z.object({
  kind: movementKinds,
  rebate: rebateField,
  level: levelField,
  ...userFields,
  currency: currencyRefSchema,
  amount: z.string(),
  payout_status: payoutStatuses,
  ...movementStatusFields,
  created_at: timestamp,
});

const rewardSideSchema = z.object({
  status: z
    .enum(['paid', 'not_eligible'])
    .describe(
      'paid: the side could earn and was paid what the terms pay it (`amount`, "0" when they pay it nothing); not_eligible: it was ' +
        'not a member of the allowlist audience when the conversion was processed, and was paid nothing',
    ),
  allowlist_audience_id: z.string().nullable().describe('The allowlist audience the side was checked against; null when the terms named none'),
  amount: z.string().describe('Base units the side was paid by this conversion (its movements of that kind)'),
});

export const reverseConversionBody = z.strictObject({
  reversal_id: z
    .string()
    .min(1)
    .max(255)
    .describe('Your deduplication key for this reversal (a refund id, say), unique in the project: the same id and body again change nothing'),
  reason: z.string().trim().min(1).max(500).describe('Why (1 to 500 characters): kept on the reversal and sent with conversion.reversed'),
  share_bps: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .optional()
    .describe('The share of the conversion taken back, in basis points (1 to 10000); left out: 10000, all of it'),
});

const movementReversalSchema = z.object({
  kind: z.enum(enumNames(MovementKind)),
  rebate: z.boolean().describe('Whether the movement is the user’s rebate from the affiliate’s reward'),
  level: levelField,
  ...userFields,
  currency_id: z.string(),
  amount: z.string().describe('floor(movement amount × share_bps / 10000), base units'),
  was: z
    .enum(enumNames(ReversedFrom))
    .describe('Where the money was: `pending` (the movement becomes available net of it) or `available` (in a claim check)'),
  claim_check_id: z.string().nullable().describe('The check the movement is in; null when it was pending'),
  from_check: z.string().describe('What left that check while it was still open (base units)'),
  to_debt: z
    .string()
    .describe('What became the user’s debt: the voucher was out (closed, claimed or expired), paid first out of what the user earns next'),
});

export const reversalSchema = z.object({
  reversal_id: z.string(),
  conversion_id: z.string(),
  share_bps: z.number().int(),
  reason: z.string(),
  volume_usd: z.string().nullable().describe('The share of the conversion’s volume taken out of every figure (USD); null when it had none'),
  revenue_usd: z.string().nullable().describe('The share of its revenue taken out of every figure (USD); null when it had none'),
  reversed_by: z.string().describe('The API key that reversed it'),
  created_at: timestamp,
  movements: z
    .array(movementReversalSchema)
    .describe('What came back from each movement (a declined one, or one whose share rounds to 0, is not listed)'),
});

export const conversionSchema = z.object({
  id: z.string(),
  name: z.string(),
  ...userFields,
  status: conversionStatuses,
  occurred_at: timestamp,
  received_at: timestamp,
  processed_at: timestamp.nullable(),
  volume_usd: z.string().nullable(),
  revenue_usd: z.string().nullable(),
  reward_base: z.string().nullable(),
  referral_code: z.string().nullable(),
  attribution: z
    .object({
      affiliate: affiliateSchema,
      master: affiliateSchema.nullable(),
      upline: z
        .array(z.object({ level: z.number().int().describe('2, 3 or 4'), ...affiliateSchema.shape }))
        .describe(
          'The affiliate’s upline when the conversion was paid, ascending: level 2 the affiliate that referred it, 3 and 4 above ' +
            '(a level suspended then is left out, so levels may skip); empty when nobody referred the affiliate',
        ),
      spread_bps: z.number().int().nullable(),
      tier_id: z.string().nullable(),
      user_rebate_rate_bps: z
        .number()
        .int()
        .describe('The share of the affiliate’s reward (basis points, 0 to 2,000) its code gave the user as a rebate, frozen when paid; 0: none'),
    })
    .nullable()
    .describe('Who the conversion was paid under, frozen when it was processed; null when nobody referred the user'),
  failure_reason: z.string().nullable(),
  movements: z.array(conversionMovementSchema),
  rewards: z
    .object({
      end_user: rewardSideSchema.describe('The converting user (end_user_payout)'),
      affiliate: rewardSideSchema.nullable().describe('The referring affiliate (affiliate_payout); null when nobody referred the user'),
      master: rewardSideSchema
        .nullable()
        .describe('The affiliate’s master (agency_payout): follows the affiliate’s eligibility; null when the affiliate has no master'),
    })
    .nullable()
    .describe(
      'Per side, whether it was paid or not eligible under the allowlists of the terms, frozen when the conversion was processed ' +
        '(later changes of membership, terms or audiences rewrite nothing); null unless the status is processed',
    ),
  reversals: z
    .array(reversalSchema)
    .optional()
    .describe('Its reversals, oldest first (GET /api/v1/conversions/{conversionId} only; the list leaves them out)'),
});

export const conversionListSchema = listSchema(conversionSchema);

export const conversionListQuery = z.object({
  ...pageQuery,
  status: conversionStatuses.optional().describe('Only conversions in this status'),
  name: z.string().min(1).max(200).optional().describe('Only conversions of this name (matched exactly, as payout terms match it)'),
  user_identifier: userIdentifier(z.string().min(1).max(512)).optional().describe('Only this converting user’s conversions'),
  user_identifier_type: identifierTypeQuery.optional().describe('The type of user_identifier; evm_address when left out (only with user_identifier)'),
});

// ------------------------------------------------------------------ movements and leaderboard

export const movementsQuery = z.object({
  ...pageQuery,
  user_identifier: userIdentifier(z.string().min(1).max(512))
    .optional()
    .describe('Whose movements (as the one paid): required with an API key; with a wallet session, its own address or left out'),
  user_identifier_type: identifierTypeQuery.optional().describe('The identifier’s type; evm_address when left out'),
  identifier_type: identifierTypeQuery.optional().describe('The same as user_identifier_type (the name the Fuul SDK sends)'),
  type: z
    .enum(['onchain-currency', 'point'])
    .optional()
    .describe(
      'onchain-currency (the Fuul SDK’s getUserPayoutMovements): only movements in chain currencies; point (getUserPointsMovements): only points; left out, every currency',
    ),
  status: movementStatuses.optional().describe('Only movements in this status (pending, available or declined); left out, every movement'),
  from_date: windowBound.optional().describe('Only movements written from this UTC day (YYYY-MM-DD) or instant on'),
  to_date: windowBound.optional().describe('Only movements written up to this UTC day (inclusive, YYYY-MM-DD) or instant'),
  project_id: z
    .string()
    .max(64)
    .optional()
    .describe('With a wallet session token: the project it acts in (required). With an API key: the key’s own project, if given'),
});

export const movementSchema = z.object({
  date: timestamp.describe('When the movement was written'),
  kind: movementKinds,
  is_referrer: z.boolean().describe('true for affiliate_payout and agency_payout (earned by referring)'),
  rebate: rebateField,
  level: levelField,
  ...userFields,
  conversion_id: z.string(),
  conversion_name: z.string(),
  total_amount: z.string().describe('Base units, as a decimal string'),
  currency_address: z.string().nullable().describe('The currency’s address; null for points'),
  chain_id: z.number().int().nullable().describe('The currency’s chain id, a JSON number (as the Fuul SDK reads a movement’s); null for points'),
  currency: currencyRefSchema,
  payout_status: payoutStatuses,
  payout_status_details: z.string().nullable(),
  ...movementStatusFields,
  project_id: z.string(),
});
export const movementListSchema = listSchema(movementSchema);

/** A leaderboard's day: YYYY-MM-DD, or an ISO 8601 instant (as Fuul's clients send) read as its UTC day. */
const isoDay = z.iso.date();
const isoInstant = z.iso.datetime({ offset: true });
const leaderboardDay = z
  .string()
  .max(40)
  .refine((value) => isoDay.safeParse(value).success || isoInstant.safeParse(value).success, 'must be a date (YYYY-MM-DD) or an ISO 8601 instant')
  .transform((value) => (value.length === 10 ? value : new Date(value).toISOString().slice(0, 10)));

/** The extra fields of a payouts leaderboard entry the Fuul SDK may ask for (`fields`). */
const LEADERBOARD_FIELDS: readonly string[] = ['affiliate_code', 'tiers', 'referred_volume', 'referred_users'];

export const leaderboardQuery = z.object({
  ...pageQuery,
  currency_address: address.optional().describe('The currency ranked; may be left out when the project pays in one currency'),
  chain_id: z.coerce
    .number()
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .describe('Needed when the project has this address on several chains'),
  user_type: leaderboardUserTypes.default('affiliate').describe('affiliate: affiliate_payout movements; end_user: end_user_payout movements'),
  user_identifier: userIdentifier(z.string().min(1).max(512)).optional().describe('Only this user’s entry, with its rank'),
  user_address: userIdentifier(z.string().min(1).max(512))
    .optional()
    .describe('The same as user_identifier (the Fuul SDK’s deprecated name); the two must agree when both are sent'),
  user_identifier_type: identifierTypeQuery.optional(),
  identifier_type: identifierTypeQuery.optional().describe('The same as user_identifier_type (the name the Fuul SDK sends)'),
  from: leaderboardDay.optional().describe('First UTC day counted (a date, or an instant taken as its UTC day); left out, from the first'),
  to: leaderboardDay.optional().describe('Last UTC day counted, included (a date, or an instant taken as its UTC day); left out, up to today'),
  fields: z
    .string()
    .max(200)
    .optional()
    .transform((value, ctx) => {
      const names =
        value === undefined
          ? []
          : value
              .split(',')
              .map((name) => name.trim())
              .filter((name) => name !== '');
      for (const name of names) {
        if (!LEADERBOARD_FIELDS.includes(name))
          ctx.addIssue({ code: 'custom', message: `names no field of an entry: ${name} (${LEADERBOARD_FIELDS.join(', ')})` });
      }
      return names;
    })
    .describe(`Extra fields of each entry, separated by commas (the Fuul SDK’s): ${LEADERBOARD_FIELDS.join(', ')}`),
  conversion_external_ids: z.string().max(1000).optional().describe('Refused (400): conversions have no external ids here yet'),
  'conversion_external_ids[]': z
    .string()
    .max(1000)
    .optional()
    .describe('The form the Fuul SDK sends conversion_external_ids in; refused (400) as conversion_external_ids is'),
  project_id: z
    .string()
    .max(64)
    .optional()
    .describe(
      'With a wallet session token: the project it acts in (required; its own entry is answered). With an API key: the key’s own project, if given',
    ),
});

/** The points board's query: the payouts board's without a currency (the project's point currency is the one ranked). */
export const pointsLeaderboardQuery = leaderboardQuery.omit({ currency_address: true, chain_id: true, project_id: true });

export const leaderboardSchema = z.object({
  results: z.array(
    z.object({
      rank: z.number().int().describe('From 1; ties in total are ranked by identifier'),
      address: z.string().describe('The user’s identifier'),
      ...userFields,
      total_amount: z
        .number()
        .describe(
          'Whole currency units (base units ÷ 10^decimals), a JSON number as the Fuul SDK types it: the nearest double, exact to about 15 digits',
        ),
      total_amount_base_units: z.string().describe('The exact total: base units, as a decimal string'),
      total_attributions: z.number().int().describe('Movements counted'),
      affiliate_code: z.string().optional().describe('With fields=affiliate_code: the user’s oldest code, when it is an affiliate'),
      referred_volume: z.number().optional().describe('With fields=referred_volume: the USD volume of the users it referred, all time (0 when none)'),
      referred_users: z.number().int().optional().describe('With fields=referred_users: the users it referred, converted or not'),
      chain_id: z
        .string()
        .nullable()
        .describe(
          'The currency’s chain id as a decimal string: the Fuul SDK types the leaderboard’s chain id as a string (everywhere else the API writes a JSON number); null on the points board',
        ),
    }),
  ),
  total_results: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
  calculated_at: timestamp.describe(
    'When this page was read (a page is a snapshot of at most CLAIM_LEADERBOARD_CACHE_MS, 1 s by default; a user’s own entry is read for each request)',
  ),
});

export const listQuery = z.object(pageQuery);

// ------------------------------------------------------------------ decisions on waiting movements

export const movementDecisionBody = z.strictObject({
  conversion_ids: z
    .array(z.string().min(1).max(128))
    .min(1)
    .max(1_000)
    .describe('1 to 1,000 conversion ids of the project (a repeated id is decided once)'),
  reason: z.string().max(500).optional().describe('Why (at most 500 characters); kept on declined movements'),
});

export const movementDecisionsSchema = z.object({
  results: z
    .array(
      z.object({
        conversion_id: z.string(),
        outcome: z
          .enum(enumNames(DecisionOutcome))
          .describe(
            'approved / declined: its movements waiting for approval or review were decided now; already_approved / already_declined: ' +
              'decided before, nothing changed; not_pending: nothing of it waits for a decision; not_found: no such conversion in the project',
          ),
        movements: z.array(conversionMovementSchema).describe('The conversion’s movements as they stand after the decision'),
      }),
    )
    .describe('One per distinct conversion id, in the order sent'),
});
