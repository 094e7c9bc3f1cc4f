import { z } from 'zod';
import { USER_TRAIT_RULES } from '../../../services/rules/contract-limits';
import { IDENTIFIER_TYPES } from '../../../services/rules/identifiers';
import { listSchema, pageQuery } from '../../http/list';
import { identifierTypeQuery, userIdentifier } from '../../http/params';

/**
 * HTTP shapes of the traits API (snake_case); the gRPC contract is UpsertUserTraits / ListUserTraits in
 * proto/referral/audience/v1/audience.proto. Lengths here are sanity bounds on what is read at all;
 * the service applies the exact rules (services/rules/contract-limits.ts, USER_TRAIT_RULES).
 */
const { maxPerBatch, nameMaxLength, textMaxLength, numberMaxLength, maxExponent, maxClockAheadMs } = USER_TRAIT_RULES;

const NAME_RULE = `1 to ${nameMaxLength} characters: a letter, then letters, digits, \`_\`, \`.\` or \`-\`; letter case matters. A condition reads it as \`trait:<name>\`.`;
const VALUE_RULE =
  `A number, a string (at most ${textMaxLength} characters) or a boolean. A number is kept exactly as written (at most ${numberMaxLength} characters, ` +
  `a magnitude from 1e-${maxExponent} to 1e${maxExponent + 1}, or 0), never rounded through a double: 1000000000000000000000001 stays that, and conditions compare it exactly.`;

const identifier = userIdentifier(z.string().min(1).max(512));
const identifierType = z.string().min(1).max(64).describe(IDENTIFIER_TYPES.join(', '));
const traitValue = z.union([z.number(), z.string().max(10 * textMaxLength), z.boolean()]);

export const traitInput = z.strictObject({
  identifier,
  identifier_type: identifierType,
  name: z.string().max(1_000).describe(NAME_RULE),
  value: traitValue.describe(VALUE_RULE),
  updated_at: z.iso
    .datetime({ offset: true })
    .optional()
    .describe(
      `When the value changed at the source (ISO-8601). Per user and name the write with the latest updated_at wins; an older one is ignored. ` +
        `Unset: the time the service receives it. At most ${maxClockAheadMs / 60_000} minutes ahead of the service's clock.`,
    ),
});

export const traitsBatchBody = z.strictObject({
  traits: z.array(traitInput).min(1).describe(`1 to ${maxPerBatch} traits (more: 413)`),
});

export const traitsBatchSchema = z.object({
  received: z.number().int().describe('Traits in the request'),
  written: z.number().int().describe('Traits stored: new, or at least as new as the stored value of the same user and name'),
  ignored: z
    .number()
    .int()
    .describe('Traits older than the stored value of the same user and name, or superseded by a later one of the same user and name in this request'),
});

export const userTraitSchema = z.object({
  name: z.string(),
  value: traitValue.describe('As stored: a JSON number, a string or a boolean'),
  updated_at: z.string().describe('ISO-8601 UTC: the write that holds'),
});

export const userTraitListSchema = listSchema(userTraitSchema);

export const userTraitsQuery = z.object({ user_identifier: identifier, user_identifier_type: identifierTypeQuery, ...pageQuery });
