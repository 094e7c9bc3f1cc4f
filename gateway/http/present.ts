/** Timestamps leave the API as ISO-8601 UTC strings. */
export function iso(date: Date | undefined): string {
  return (date ?? new Date(0)).toISOString();
}

export function isoOrNull(date: Date | undefined): string | null {
  return date ? date.toISOString() : null;
}

/**
 * A service's string as one of the values the API documents (a zod enum's `options`). Anything else
 * is a broken contract: an error (500, logged), never a value passed on unchecked.
 */
export function oneOf<const T extends string>(values: readonly T[], value: string, field: string): T {
  if ((values as readonly string[]).includes(value)) return value as T;
  throw new Error(`${field}: a service answered ${JSON.stringify(value)}, which is not one of ${values.join(', ')}`);
}
