import { z } from 'zod';
import { ReviewDecision, ReviewRule, ReviewStatus } from '../../../gen/referral/claim/v1/enums';
import { enumNames } from '../../../services/rules/enums';
import { hinted } from '../../http/input-messages';
import { listSchema, pageQuery } from '../../http/list';
import { identifierTypeQuery, userIdentifier } from '../../http/params';

/**
 * HTTP shapes of the review rules and the review queue (docs/claims.md#review-rules). The claim
 * service checks each limit's range (naming the field); these shapes refuse what is malformed.
 */
const timestamp = z.string().describe('ISO-8601 UTC');
const reviewRules = z.enum(enumNames(ReviewRule));
const INT32_MAX = 2_147_483_647;
/** Within int32 here (the gRPC field); the service holds each to its own range. */
const wholeNumber = z.number().int().min(-INT32_MAX).max(INT32_MAX);
const baseUnits = hinted(
  z.string().max(100).describe('Base units of the conversion’s currency, a decimal string, e.g. "1000000000000000000"'),
  'base units as a decimal string',
);

export const reviewSettingsSchema = z.object({
  max_conversions_per_user_per_hour: z
    .number()
    .int()
    .nullable()
    .describe('1 to 1,000,000: a user’s conversion beyond this many in the hour ending at it is reviewed; null: off'),
  min_seconds_from_referral_to_conversion: z
    .number()
    .int()
    .nullable()
    .describe('0 to 31,536,000: a conversion fewer seconds than this after its user’s referral is reviewed; null: off'),
  max_reward_per_conversion: z
    .string()
    .nullable()
    .describe(
      'Base units: a conversion whose total planned reward (every payout of it, in its currency’s base units) is above this is reviewed; null: off',
    ),
  updated_at: timestamp.nullable().describe('null until the settings are first changed (every rule off)'),
});

export const reviewSettingsBody = z.strictObject({
  max_conversions_per_user_per_hour: wholeNumber.nullable().optional().describe('1 to 1,000,000, or null to turn the rule off'),
  min_seconds_from_referral_to_conversion: wholeNumber.nullable().optional().describe('0 to 31,536,000 (a year), or null to turn the rule off'),
  max_reward_per_conversion: baseUnits.nullable().optional().describe('Base units (at most 2^256 − 1), or null to turn the rule off'),
});

export const conversionReviewSchema = z.object({
  conversion_id: z.string(),
  user_identifier: z.string(),
  user_identifier_type: z.string(),
  rules: z
    .array(
      z.object({
        rule: reviewRules,
        limit: z.string().describe('The setting when the conversion was flagged (a decimal string)'),
        actual: z.string().describe('The conversion’s figure that broke it (a decimal string)'),
      }),
    )
    .describe('The rules it broke, with their figures'),
  flagged_at: timestamp,
  status: z.enum(enumNames(ReviewStatus)),
  decided_at: timestamp.nullable(),
  decision: z.enum(enumNames(ReviewDecision)).nullable(),
});
export const conversionReviewListSchema = listSchema(conversionReviewSchema);

export const conversionReviewListQuery = z.object({
  ...pageQuery,
  rule: reviewRules.optional().describe('Only conversions that broke this rule'),
  status: z.enum(enumNames(ReviewStatus)).optional().describe('open (waiting for a decision) or decided; both when left out'),
  user_identifier: userIdentifier(z.string().min(1).max(512)).optional().describe('Only this converting user’s conversions'),
  user_identifier_type: identifierTypeQuery.optional().describe('The type of user_identifier; evm_address when left out (only with user_identifier)'),
});
