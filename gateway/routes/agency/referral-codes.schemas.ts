import { z } from 'zod';
import { INVITE_CODE_RULES } from '../../../services/rules/contract-limits';
import { pageQuery } from '../../http/list';
import { identifierTypeQuery } from '../../http/params';
import { identifier, timestamp, useCodeBody } from './agency.schemas';

const maxUses = z.number().int().min(0).max(INVITE_CODE_RULES.maxUses);

export const generateCodesQuery = z.object({
  user_identifier: identifier,
  user_identifier_type: identifierTypeQuery,
  quantity: z.coerce
    .number()
    .int()
    .min(1)
    .max(INVITE_CODE_RULES.maxQuantity)
    .default(1)
    .describe(`Codes to generate, 1 to ${INVITE_CODE_RULES.maxQuantity}`),
  max_uses: z.coerce
    .number()
    .int()
    .min(0)
    .max(INVITE_CODE_RULES.maxUses)
    .optional()
    .describe('Uses each code allows; left out: unlimited; 0: generated disabled'),
});

export const listCodesQuery = z.object({ user_identifier: identifier, user_identifier_type: identifierTypeQuery, ...pageQuery });

export const updateCodeBody = z.strictObject({
  max_uses: maxUses.nullable().describe('A number of uses, null for unlimited, 0 to disable the code; uses already taken stay'),
});

export const endReferralQuery = z.object({
  user_identifier: identifier,
  user_identifier_type: identifierTypeQuery,
  referrer_identifier: identifier,
  referrer_identifier_type: identifierTypeQuery,
});

/** As a use's body (useCodeBody), every field optional: without a signature, an admin or service_role key ends the referral. */
export const endReferralBody = useCodeBody.partial();

export const generatedCodesSchema = z.array(z.object({ code: z.string() }));

export const inviteCodeSchema = z.object({
  code: z.string(),
  created_at: timestamp,
  used_by: z
    .array(z.object({ identifier: z.string(), identifier_type: z.string(), used_at: timestamp }))
    .describe('The users referred through the code now, oldest first (an ended referral leaves this list; its use stays counted)'),
  max_uses: z.number().int().nullable().describe('null: unlimited; 0: disabled'),
  uses: z.number().int(),
  remaining_uses: z.number().int().nullable().describe('max_uses - uses, at least 0; null when unlimited'),
  rebate_rate: z.number().nullable().describe('Invite codes carry no rebate rate: always null'),
  clicks: z.number().int(),
  total_users: z.number().int().describe('The users referred through the code now'),
  total_earnings: z.number().describe('Not tracked per invite code: always 0'),
});

export const inviteCodePageSchema = z.object({
  results: z.array(inviteCodeSchema),
  count: z.number().int().describe('Invite codes of the user in all'),
  next_page: z.number().int().nullable().describe('page + 1 while more follow; otherwise null'),
});

export const updatedCodeSchema = z.object({
  code: z.string(),
  max_uses: z.number().int().nullable(),
  uses: z.number().int(),
  remaining_uses: z.number().int().nullable(),
});

export const referralStatusSchema = z.object({
  referred: z.boolean(),
  code: z.string().optional().describe('The code the user was referred with, as stored'),
  referrer_identifier: z.string().optional(),
  referrer_identifier_type: z.string().optional(),
  referred_at: timestamp.optional(),
});

export const codeAvailabilitySchema = z.object({
  available: z.boolean().describe('The code exists (an active affiliate’s code, or an invite code) and has a use left'),
});
