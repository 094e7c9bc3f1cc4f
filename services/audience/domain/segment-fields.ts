import { type FieldViolation, invalidFields } from '../../rules/errors';
import { findUnsafeJson } from '../../platform/json-safety';
import { type Checked, checkText } from '../../rules/text-fields';
import { parseCondition } from './condition';

/** Field rules shared by segment and badge writes; field names are the API's. */
export const LIMITS = {
  nameLength: 100,
  segmentDescriptionLength: 1_000,
  badgeDescriptionLength: 500,
  conditionBytes: 16 * 1024,
  conditionDepth: 32,
  imageUrlLength: 2_048,
  /** Tier ranks run from 1; a project has a handful of tiers, so this bound only refuses nonsense. */
  maxTierRank: 10_000,
};

export function checkName(value: string, field = 'name'): Checked<string> {
  return checkText(value, field, LIMITS.nameLength, 'must not be empty');
}

export function checkDescription(value: string | undefined | null, maxLength: number, field = 'description') {
  if (value === undefined || value === null) return { value: null, violations: [] as FieldViolation[] };
  const violations: FieldViolation[] = value.length > maxLength ? [{ field, reason: `must be at most ${maxLength} characters` }] : [];
  return { value: value.length === 0 ? null : value, violations };
}

/**
 * A condition is a JSON object, at most 16 KB as JSON and 32 levels deep, holding nothing jsonb
 * cannot store, written in the condition language (./condition.ts) the matching worker evaluates.
 */
export function checkCondition(json: string | undefined | null, field = 'condition') {
  if (json === undefined || json === null) return { value: null, violations: [] as FieldViolation[] };
  if (Buffer.byteLength(json) > LIMITS.conditionBytes) {
    return { value: null, violations: [{ field, reason: `must be at most ${LIMITS.conditionBytes} bytes of JSON` }] };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return { value: null, violations: [{ field, reason: 'must be valid JSON' }] };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { value: null, violations: [{ field, reason: 'must be a JSON object' }] };
  }
  // jsonb holds no NUL and no lone surrogate; 1e400 would be stored as null; depth is bounded for whoever evaluates it.
  const unsafe = findUnsafeJson(parsed, { maxDepth: LIMITS.conditionDepth, root: field });
  if (unsafe) return { value: null, violations: [unsafe] };
  const checked = parseCondition(parsed, field);
  if (checked.violations.length > 0) return { value: null, violations: checked.violations };
  return { value: JSON.stringify(parsed), violations: [] as FieldViolation[] };
}

/** A tier rank: unset (no tier), or a whole number from 1 to LIMITS.maxTierRank. */
export function checkTierRank(value: number | undefined | null, field = 'tier_rank') {
  if (value === undefined || value === null) return { value: null, violations: [] as FieldViolation[] };
  if (!Number.isInteger(value) || value < 1 || value > LIMITS.maxTierRank) {
    return { value: null, violations: [{ field, reason: `must be a whole number from 1 to ${LIMITS.maxTierRank}` }] };
  }
  return { value, violations: [] as FieldViolation[] };
}

export function checkImageUrl(value: string | undefined | null, field = 'image_url') {
  if (value === undefined || value === null || value === '') return { value: null, violations: [] as FieldViolation[] };
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || url.protocol !== 'https:' || value.length > LIMITS.imageUrlLength) {
    return { value: null, violations: [{ field, reason: `must be an https URL of at most ${LIMITS.imageUrlLength} characters` }] };
  }
  return { value, violations: [] as FieldViolation[] };
}

/** Throws one error listing every violation, so a client fixes a request in one round. */
export function throwIfInvalid(violations: FieldViolation[]): void {
  if (violations.length > 0) throw invalidFields(violations);
}
