import { z } from 'zod';
import { EntryBatchStatus, EntryKind, EntrySource, SegmentType } from '../../../gen/referral/audience/v1/enums';
import { MAX_BATCH_ENTRIES, MAX_BATCH_WAIT_MS } from '../../../services/rules/contract-limits';
import { enumNames } from '../../../services/rules/enums';
import { IDENTIFIER_TYPES } from '../../../services/rules/identifiers';
import { cursorQuery, listSchema, pageQuery } from '../../http/list';
import { identifierTypeQuery, userIdentifier } from '../../http/params';

/**
 * HTTP shapes of the audience API (snake_case); the gRPC contract is in proto/referral/audience, and
 * every vocabulary here is derived from its enums. Lengths below are sanity bounds on what is read at
 * all: the service applies the exact rules (a name of at most 100 characters once trimmed, ...).
 */
const timestamp = z.string().describe('ISO-8601 UTC');
const condition = z
  .record(z.string(), z.unknown())
  .describe(
    'Who belongs to a dynamic audience. A group `{ "all": [...] }` or `{ "any": [...] }` (nested, at most 5 levels of groups and ' +
      '50 comparisons in all), or a comparison `{ "metric", "op", "value", "window_days"?, "conversion_name"?, "currency_id"? }`. ' +
      'metric: volume_usd, revenue_usd, conversions, referred_users, referred_volume_usd, earnings (integer base units of one ' +
      'currency: currency_id required), or trait:<name> (a trait the project pushed). op: gt gte lt lte eq neq in (`in` takes an ' +
      'array of up to 100 values). Figures are exact: a JSON number or a decimal string ("100.5"); counts and earnings are whole. ' +
      'window_days (1 to 3650): only the last N days (today included, UTC); conversion_name: only conversions of that name ' +
      '(volume_usd, revenue_usd, conversions). A user without figures has 0 of each; a trait the user does not have matches no ' +
      'comparison (neq neither). Each problem is a 400 naming its path (condition.all[2].op). At most 16 KB as JSON and 32 levels ' +
      'of objects and arrays; no NUL character, no lone UTF-16 surrogate, no number beyond a double such as 1e400. A body over the ' +
      "gateway's JSON limit is a 413.",
  );

const TIER_RANK =
  'Makes the audience a tier of the project: a whole number from 1 to 10,000, unique in the project; a higher rank is a higher tier ' +
  '(a user’s current tier is the highest-ranked tier audience the user is in). Another audience’s rank: 409 TIER_RANK_TAKEN.';
const tierRank = (nullMeans: string) => z.int32().nullable().describe(`${TIER_RANK} null: ${nullMeans}.`);

export const badgeSchema = z.object({
  name: z.string(),
  description: z.string().nullable(),
  image_url: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const segmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  type: z.enum(enumNames(SegmentType)).describe('dynamic when the segment has a condition'),
  condition: condition.nullable(),
  entries_count: z.number().int(),
  tier_rank: tierRank('the audience is no tier'),
  badge: badgeSchema.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const entrySchema = z.object({
  identifier: z.string(),
  identifier_type: z.string(),
  kind: z.enum(enumNames(EntryKind)),
  source: z.enum(enumNames(EntrySource)),
  added_at: timestamp,
});

export const entryBatchSchema = z.object({
  job_id: z.string(),
  status: z.enum(enumNames(EntryBatchStatus)),
  received: z.number().int(),
  added: z.number().int(),
  skipped: z.number().int().describe('Entries already in the segment, or repeated in the batch'),
  error: z.string().nullable(),
});

export const segmentEvaluationSchema = z.object({
  status: z.enum(enumNames(EntryBatchStatus)).describe('queued, active (running), completed or failed'),
  started_at: timestamp.nullable(),
  finished_at: timestamp.nullable(),
  matched: z.number().int().nullable().describe('Users the condition matched (static entries among them included); null until completed'),
  added: z.number().int().nullable().describe('Dynamic entries added; null until completed'),
  removed: z.number().int().nullable().describe('Dynamic entries removed (users that no longer match); null until completed'),
});

export const userAudiencesSchema = z.object({
  results: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      badge_name: z.string().nullable(),
      badge_description: z.string().nullable(),
      badge_image: z.string().nullable(),
    }),
  ),
});

export const segmentListSchema = listSchema(segmentSchema);
export const entryListSchema = listSchema(entrySchema, true);

/** Made canonical here, at the edge (gateway/http/params.ts). */
const identifier = userIdentifier(z.string().min(1).max(512));
const identifierType = z.string().min(1).max(64).describe(IDENTIFIER_TYPES.join(', '));

export const userRefBody = z.strictObject({ identifier, identifier_type: identifierType });

export const createSegmentBody = z.strictObject({
  name: z.string().max(1_000),
  description: z.string().max(10_000).nullable().optional(),
  condition: condition.nullable().optional(),
  tier_rank: tierRank('no tier (the default)').optional(),
});

export const updateSegmentBody = z.strictObject({
  name: z.string().max(1_000).optional(),
  description: z.string().max(10_000).nullable().optional(),
  condition: condition.nullable().optional(),
  tier_rank: tierRank('the audience is no tier any more (its rank is free for another)').optional(),
});

export { MAX_BATCH_ENTRIES };
export const batchBody = z.strictObject({
  entries: z.array(userRefBody).min(1).describe(`1 to ${MAX_BATCH_ENTRIES} entries (more: 413)`),
});

export const badgeBody = z.strictObject({
  name: z.string().max(1_000),
  description: z.string().max(10_000).nullable().optional(),
  image_url: z.string().max(4_096).nullable().optional().describe('An https URL'),
});

export const updateBadgeBody = badgeBody.partial();

export const listQuery = z.object(pageQuery);
export const entriesQuery = z.object({ ...pageQuery, ...cursorQuery });
/** The dashboard's entry list: the same pages, and a search. */
export const entrySearchQuery = entriesQuery.extend({
  search: z.string().min(1).max(512).optional().describe('Only users whose identifier starts with this text, in any letter case'),
});
export const waitQuery = z.object({
  wait: z
    .enum(['true', 'false'])
    .optional()
    .transform((value) => value === 'true')
    .describe(`true: wait (up to ${MAX_BATCH_WAIT_MS / 1_000} s) for the job to finish`),
});
export const lookupQuery = z.object({ user_identifier: identifier, user_identifier_type: identifierTypeQuery });
export const removeEntryQuery = z.object({ user_identifier_type: identifierTypeQuery.optional() });
export const idempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe('A retried request with the same key returns the same job and adds nothing twice'),
});
