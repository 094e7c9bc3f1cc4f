import { z } from 'zod';
import { TRACKING_EVENT_LIMITS } from '../../../services/rules/contract-limits';
import { IDENTIFIER_TYPES } from '../../../services/rules/identifiers';
import { userIdentifier } from '../../http/params';

/**
 * HTTP shapes of POST /api/v1/events: the @fuul/sdk's FuulEvent (its dist/types/types/api.d.ts), alone
 * or as a batch. The agency checks the rules again (RecordTrackingEvents).
 */

/** A text the SDK may leave out, or send empty or null (document.referrer is "" without a referrer). */
const optionalText = (max: number) => z.string().max(max).nullish();

const metadataSchema = z
  .looseObject({
    tracking_id: z
      .string()
      .min(1)
      .max(TRACKING_EVENT_LIMITS.trackingIdLength)
      .describe('The visitor’s id the SDK keeps in localStorage (fuul.tracking_id): what clicks and wallets are linked by'),
    referrer: optionalText(TRACKING_EVENT_LIMITS.referrerLength).describe('The affiliate code the page was opened with (?af= or ?referrer=)'),
    affiliate_id: optionalText(TRACKING_EVENT_LIMITS.referrerLength).describe('The same code, as older SDKs send it'),
    referrer_url: optionalText(2_048),
    project_id: optionalText(64).describe('When given, must be the key’s project (403 PROJECT_MISMATCH otherwise)'),
    source: optionalText(256),
    category: optionalText(256),
    title: optionalText(256),
    tag: optionalText(256),
    dedup_id: z.union([z.string().min(1).max(TRACKING_EVENT_LIMITS.dedupIdLength), z.number().int()]).optional(),
  })
  .describe(`Free-form beside the fields listed; at most ${TRACKING_EVENT_LIMITS.objectBytes} bytes of JSON`);

const argsSchema = z
  .looseObject({
    dedup_id: z.union([z.string().min(1).max(TRACKING_EVENT_LIMITS.dedupIdLength), z.number().int()]).optional(),
  })
  .describe(
    `Free-form (pageview: page, locationOrigin); at most ${TRACKING_EVENT_LIMITS.objectBytes} bytes of JSON. ` +
      '`dedup_id` here or in metadata: accepted once per project',
  );

export const trackingEventSchema = z.strictObject({
  name: z.string().min(1).max(TRACKING_EVENT_LIMITS.nameLength).describe('pageview, connect_wallet, or a name of yours'),
  user: z
    .strictObject({
      identifier: userIdentifier(z.string().min(1).max(512)),
      identifier_type: z.enum(IDENTIFIER_TYPES as [string, ...string[]]),
    })
    .optional()
    .describe('The user the event is about (connect_wallet: the wallet that connected)'),
  user_address: userIdentifier(z.string().min(1).max(512)).optional().describe('Legacy: an evm_address user, when `user` is absent'),
  signature: z.string().min(1).max(2_000).optional().describe('The wallet’s signature of signature_message (connect_wallet)'),
  signature_message: z.string().min(1).max(2_000).optional(),
  signature_public_key: z.string().min(1).max(512).optional().describe('Solana and Stellar wallets: the key that signed'),
  account_chain_id: z.number().int().positive().optional().describe('Where a smart-contract wallet lives (EIP-1271)'),
  project_id: z.string().max(64).optional().describe('The SDK adds it when sending to several projects; must be the key’s project'),
  args: argsSchema.optional(),
  metadata: metadataSchema,
});

export type TrackingEventBody = z.output<typeof trackingEventSchema>;

export const trackingEventBatchSchema = z.strictObject({
  events: z
    .array(trackingEventSchema)
    .min(1)
    .max(TRACKING_EVENT_LIMITS.maxPerBatch)
    .describe(`1 to ${TRACKING_EVENT_LIMITS.maxPerBatch.toLocaleString('en-US')} events, stored together`),
});

/** `path: reason` of a zod issue, as the 400s name fields. */
const named = (issue: z.core.$ZodIssue) =>
  `${
    issue.path
      .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))
      .join('')
      .replace(/^\./, '') || '(body)'
  }: ${issue.message}`;

/**
 * One event, or a batch (`events`). When the body fits neither, the message names what is wrong
 * with the shape it was meant as (a batch when it has `events`), not that it matches no shape.
 */
export const trackingEventsBody = z.union([trackingEventSchema, trackingEventBatchSchema], {
  error: (issue) => {
    if (issue.code !== 'invalid_union') return undefined;
    const input = issue.input;
    const meant = typeof input === 'object' && input !== null && 'events' in input ? 1 : 0;
    const problems = (issue as { errors?: z.core.$ZodIssue[][] }).errors?.[meant] ?? [];
    if (problems.length === 0) return undefined;
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    return `${meant === 1 ? 'a batch' : 'an event'}: ${named(problems[0]!)}${more}`;
  },
});

export const trackingEventsQuery = z.object({
  project_id: z.string().max(64).optional().describe('The SDK adds it when sending to several projects; must be the key’s project'),
});

export const trackingEventsAcceptedSchema = z.object({
  accepted: z.number().int().describe('Events stored'),
  duplicates: z.array(z.number().int()).describe('A batch: the indexes of the events not stored because their dedup_id was accepted before'),
});
