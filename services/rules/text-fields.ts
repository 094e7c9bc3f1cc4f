import type { FieldViolation } from './errors';

/** A checked input: the value as it will be stored, and what is wrong with it (nothing when empty). */
export interface Checked<T> {
  value: T;
  violations: FieldViolation[];
}

// eslint-disable-next-line no-control-regex -- finding control characters is what it is for
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/**
 * Required text as every service stores it: trimmed, 1 to maxLength characters, no control
 * characters. `emptyReason` is what an empty value is told (the APIs already answer it differently).
 */
export function checkText(value: string | undefined, field: string, maxLength: number, emptyReason = 'is required'): Checked<string> {
  const trimmed = (value ?? '').trim();
  if (trimmed.length === 0) return { value: trimmed, violations: [{ field, reason: emptyReason }] };
  if (trimmed.length > maxLength) return { value: trimmed, violations: [{ field, reason: `must be at most ${maxLength} characters` }] };
  if (CONTROL_CHARACTERS.test(trimmed)) return { value: trimmed, violations: [{ field, reason: 'must not contain control characters' }] };
  return { value: trimmed, violations: [] };
}
