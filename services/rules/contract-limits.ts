/**
 * Limits of the public contract that a .proto file cannot carry, written once: the gateway refuses
 * past them at the HTTP edge (413 for a batch, 400 for a field) and the services check them again
 * for callers that reach them directly. Page limits are in ./pagination.ts.
 */

/** Entries one batch add may carry (audience, POST …/entries/batch). */
export const MAX_BATCH_ENTRIES = 10_000;

/** Longest a caller may wait for a batch to finish (audience, ?wait=true). */
export const MAX_BATCH_WAIT_MS = 30_000;

/** Lengths of the text fields of tax forms and settings, in characters after trimming. */
export const TAX_TEXT_LIMITS = {
  nameLength: 200,
  addressLineLength: 200,
  cityLength: 100,
  regionLength: 100,
  postalCodeLength: 20,
  reasonLength: 500,
} as const;

/** Items one BatchResolveAttribution call may carry (agency). */
export const MAX_ATTRIBUTION_BATCH = 1_000;

/** Referral codes (agency): length, alphabet, and how many one affiliate may hold. */
export const REFERRAL_CODE_RULES = {
  minLength: 3,
  maxLength: 32,
  pattern: /^[A-Za-z0-9_-]+$/,
  maxPerAffiliate: 20,
} as const;

/**
 * Invite codes (agency, the SDK's `/referral_codes`): how many one request may generate, how many one
 * affiliate may hold, the highest `max_uses`, and the generated codes' shape (8 characters of an alphabet
 * without look-alikes: no 0/O, 1/I/L; 31^8 ≈ 8.5e11 codes).
 */
export const INVITE_CODE_RULES = {
  maxQuantity: 100,
  maxPerAffiliate: 1_000,
  maxUses: 1_000_000,
  length: 8,
  alphabet: '23456789ABCDEFGHJKMNPQRSTUVWXYZ',
} as const;

/**
 * A code's user rebate rate (agency, docs/affiliates.md#changing-a-code-and-user-rebate-rates): the share of the affiliate's
 * reward that goes to the users it referred through the code. The @fuul/sdk sends it as a fraction with
 * at most two decimals (0 to 0.2); it is kept in basis points (0 to 2,000).
 */
export const USER_REBATE_RATE_RULES = { maxRate: 0.2, maxBps: 2_000, decimals: 2 } as const;

/** Lengths of the agency's text fields, in characters after trimming. */
export const AGENCY_TEXT_LIMITS = {
  nameLength: 200,
  reasonLength: 500,
} as const;

/** Master affiliates (agency): the spread's range in basis points, and users one bind request may carry. */
export const MASTER_RULES = {
  maxSpreadBps: 10_000,
  maxBindUsers: 100,
} as const;

/** Tier protection (agency, specification §8.2): how long a protection may last, in days. */
export const TIER_PROTECTION_DAYS = { min: 1, max: 365 } as const;

/** Applications (agency): lengths of their texts, and how many one bulk decision may carry. */
export const APPLICATION_LIMITS = {
  messageLength: 2_000,
  noteLength: 500,
  maxBulkIds: 100,
} as const;

/** Segments one affiliate-list filter (`audience_ids`) may name (agency). */
export const MAX_AUDIENCE_FILTER_IDS = 50;

/** Conversion names one affiliate-list filter (`conversions`) may name, and a name's length (the claim service's limit). */
export const AFFILIATE_LIST_CONVERSION_FILTER = { maxNames: 20, nameLength: 100 } as const;

/** Conversions one batch may carry (claim, POST /api/v1/conversions/batch): one attribution batch, one payment transaction. */
export const MAX_CONVERSIONS_PER_BATCH = 1_000;

/** The affiliate portal's daily series (agency, GetAffiliateStats): days by default, and at most (a leap year). */
export const AFFILIATE_STATS_DAYS = { default: 30, max: 366 } as const;

/**
 * User traits (audience, POST /v1/user-traits/batch; read by conditions as `trait:<name>`). A name is
 * 1 to 64 characters: a letter, then letters, digits, `_`, `.` or `-` (case matters; no `:`, so
 * `trait:<name>` reads unambiguously). A string value holds at most 1,000 characters; a number is
 * kept exactly as written in JSON, at most 100 characters and a decimal exponent within ±100 once
 * normalised (1e24 and 0.000001 are fine; 1e400 is not). An updated_at may run ahead of the service's
 * clock by at most 5 minutes (a write dated far ahead would win over every later one).
 */
export const USER_TRAIT_RULES = {
  maxPerBatch: 10_000,
  namePattern: /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/,
  nameMaxLength: 64,
  textMaxLength: 1_000,
  numberMaxLength: 100,
  maxExponent: 100,
  maxClockAheadMs: 5 * 60_000,
} as const;

/**
 * Tracking events (POST /api/v1/events, agency RecordTrackingEvents): events one request may carry,
 * lengths in characters, and the largest `args` or `metadata` object, in bytes of its JSON.
 */
export const TRACKING_EVENT_LIMITS = {
  maxPerBatch: 1_000,
  nameLength: 100,
  trackingIdLength: 128,
  dedupIdLength: 256,
  referrerLength: 256,
  objectBytes: 8_192,
} as const;
