import type { FieldViolation } from '../../rules/errors';
import { checkText } from '../../rules/text-fields';

export const MAX_CONVERSION_NAME_LENGTH = 100;

/** A conversion name as terms and conversions store it: trimmed, 1 to 100 characters, matched exactly. */
export function checkConversionName(value: string, field: string): { value: string; violations: FieldViolation[] } {
  return checkText(value, field, MAX_CONVERSION_NAME_LENGTH);
}
