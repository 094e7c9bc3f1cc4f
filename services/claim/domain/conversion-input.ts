import { createHash } from 'node:crypto';
import { nonCanonicalIds } from '../../rules/canonical-ids';
import { type DomainError, FieldRule, type FieldViolation, InvalidArgumentError, refuseFields } from '../../rules/errors';
import { checkIdentifier, type UserIdentifier } from '../../rules/identifiers';
import { AMOUNT_RANGE, parseAmount } from '../../rules/money';
import { checkConversionName } from './conversion-name';

/** A conversion as a request carries it (ConversionInput). */
export interface ConversionInputLike {
  id: string;
  name: string;
  user?: { identifier: string; identifierType: string } | undefined;
  occurredAt?: Date | undefined;
  volumeUsd?: string | undefined;
  revenueUsd?: string | undefined;
  rewardBase?: string | undefined;
  referralCode?: string | undefined;
}

/** A conversion checked and in its canonical form, with the hash that tells a resubmission from a reuse of its id. */
export interface CheckedConversion {
  id: string;
  name: string;
  user: UserIdentifier;
  /** As sent; unset means "when it was received". */
  occurredAt: Date | null;
  volumeUsd: string | null;
  revenueUsd: string | null;
  rewardBase: bigint | null;
  referralCode: string | null;
  requestHash: Buffer;
}

export const MAX_CONVERSION_ID_LENGTH = 128;
export const MAX_REFERRAL_CODE_LENGTH = 64;
/** How far ahead of this service's clock an occurred_at may be (the sender's clock may run ahead). */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;
/** CONVERSION_BACKFILL_DAYS by default: a year of history from before the project was created. */
export const DEFAULT_BACKFILL_DAYS = 365;
const DAY_MS = 86_400_000;

/**
 * An occurred_at outside its bounds: a conversion refused for that alone answers
 * OCCURRED_AT_OUT_OF_RANGE, one with other problems too VALIDATION_FAILED (refuseFields).
 */
export const OCCURRED_AT_RANGE = new FieldRule('OCCURRED_AT_OUT_OF_RANGE');

/**
 * When a conversion may have happened, both ends in one place: from the project's creation less the
 * backfill window (CONVERSION_BACKFILL_DAYS; a project of unknown creation counts as created now),
 * to MAX_CLOCK_SKEW_MS past this service's clock. Both ends are accepted.
 */
export interface OccurredAtBounds {
  earliest: Date;
  latest: Date;
  /** What the earliest is counted from, and how far back, for the refusal's message. */
  createdAt: Date;
  backfillDays: number;
}

export function occurredAtBounds(now: Date, projectCreatedAt: Date | undefined, backfillDays: number): OccurredAtBounds {
  const createdAt = projectCreatedAt !== undefined && projectCreatedAt.getTime() < now.getTime() ? projectCreatedAt : now;
  return {
    earliest: new Date(createdAt.getTime() - backfillDays * DAY_MS),
    latest: new Date(now.getTime() + MAX_CLOCK_SKEW_MS),
    createdAt,
    backfillDays,
  };
}

function checkOccurredAt(occurredAt: Date, bounds: OccurredAtBounds, field: string): FieldViolation | undefined {
  if (Number.isNaN(occurredAt.getTime())) return { field, reason: 'must be a moment (ISO-8601)' };
  if (occurredAt.getTime() < bounds.earliest.getTime()) {
    return OCCURRED_AT_RANGE.violation(
      field,
      `must be at or after ${bounds.earliest.toISOString()}: the project was created at ${bounds.createdAt.toISOString()}, and conversions ` +
        `may have happened up to ${bounds.backfillDays} days before that (CONVERSION_BACKFILL_DAYS)`,
    );
  }
  if (occurredAt.getTime() > bounds.latest.getTime()) {
    return OCCURRED_AT_RANGE.violation(field, `must be a moment that has happened, not in the future: at or before ${bounds.latest.toISOString()}`);
  }
  return undefined;
}

/** Up to 30 integer and 18 fractional digits, no sign, no exponent. */
const USD = /^(0|[1-9][0-9]{0,29})(\.[0-9]{1,18})?$/;
// eslint-disable-next-line no-control-regex -- finding control characters is what it is for
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/**
 * Checks one conversion; `path` prefixes the field names ("conversions[3]"). Every problem is
 * listed, so one answer says all there is to fix.
 */
export function checkConversion(
  input: ConversionInputLike,
  path: string,
  bounds: OccurredAtBounds,
): { conversion: CheckedConversion } | { conversion: undefined; error: DomainError } {
  const at = (field: string) => (path ? `${path}.${field}` : field);
  // An identifier spelled otherwise than canonically is refused as the service refuses it anywhere (canonical-ids.ts).
  const nonCanonical = nonCanonicalIds(input).map((violation) => ({ ...violation, field: at(violation.field) }));
  if (nonCanonical.length > 0) {
    return {
      conversion: undefined,
      error: new InvalidArgumentError('NON_CANONICAL_ID', `${nonCanonical[0]!.field}: ${nonCanonical[0]!.reason}`, nonCanonical),
    };
  }
  const violations: FieldViolation[] = [];

  const id = checkToken(input.id, at('id'), MAX_CONVERSION_ID_LENGTH, violations);
  const name = checkConversionName(input.name, at('name'));
  violations.push(...name.violations);
  let user: UserIdentifier | undefined;
  if (!input.user) violations.push({ field: at('user'), reason: 'is required: { identifier, identifier_type }' });
  else {
    const checked = checkIdentifier(input.user.identifier, input.user.identifierType, at('user'));
    violations.push(...checked.violations);
    user = checked.user;
  }
  const occurredAt = input.occurredAt ?? null;
  const occurredAtViolation = occurredAt && checkOccurredAt(occurredAt, bounds, at('occurred_at'));
  if (occurredAtViolation) violations.push(occurredAtViolation);
  const volumeUsd = checkUsd(input.volumeUsd, at('volume_usd'), violations);
  const revenueUsd = checkUsd(input.revenueUsd, at('revenue_usd'), violations);
  let rewardBase: bigint | null = null;
  if (input.rewardBase !== undefined) {
    const parsed = parseAmount(input.rewardBase, at('reward_base'));
    if ('violation' in parsed) violations.push(parsed.violation);
    else if (parsed.amount < 0n) violations.push({ field: at('reward_base'), reason: 'must not be negative' });
    else rewardBase = parsed.amount;
  }
  const referralCode =
    input.referralCode === undefined ? null : checkToken(input.referralCode, at('referral_code'), MAX_REFERRAL_CODE_LENGTH, violations);

  if (violations.length > 0 || id === null || !user)
    return { conversion: undefined, error: refuseFields(violations, [AMOUNT_RANGE, OCCURRED_AT_RANGE]) };
  const fields = { id, name: name.value, user, occurredAt, volumeUsd, revenueUsd, rewardBase, referralCode };
  return { conversion: { ...fields, requestHash: requestHash(fields) } };
}

/** An id or code: kept exactly as sent, so it must need no trimming; 1 to maxLength characters, no control characters. */
function checkToken(value: string, field: string, maxLength: number, violations: FieldViolation[]): string | null {
  if (value.length === 0) violations.push({ field, reason: 'is required' });
  else if (value.length > maxLength) violations.push({ field, reason: `must be at most ${maxLength} characters` });
  else if (value.trim() !== value) violations.push({ field, reason: 'must not begin or end with whitespace' });
  else if (CONTROL_CHARACTERS.test(value)) violations.push({ field, reason: 'must not contain control characters' });
  else return value;
  return null;
}

/** A non-negative USD decimal, in its shortest form ("12.50" is "12.5"), so the same amount hashes the same. */
function checkUsd(value: string | undefined, field: string, violations: FieldViolation[]): string | null {
  if (value === undefined) return null;
  if (!USD.test(value)) {
    violations.push({ field, reason: 'must be a non-negative decimal string such as "1250.75" (at most 30 digits before the point and 18 after)' });
    return null;
  }
  return value.includes('.') ? value.replace(/\.?0+$/, '') : value;
}

/** The conversion as sent, canonical: equal hashes are the same conversion, resubmitted. */
function requestHash(conversion: Omit<CheckedConversion, 'requestHash'>): Buffer {
  const canonical = JSON.stringify([
    conversion.id,
    conversion.name,
    conversion.user.identifierType,
    conversion.user.identifier,
    conversion.occurredAt?.toISOString() ?? null,
    conversion.volumeUsd,
    conversion.revenueUsd,
    conversion.rewardBase?.toString() ?? null,
    conversion.referralCode,
  ]);
  return createHash('sha256').update(canonical).digest();
}
