/** Timestamps leave the API as ISO-8601 UTC strings. */
export function iso(date: Date | undefined): string {
  return (date ?? new Date(0)).toISOString();
}

export function isoOrNull(date: Date | undefined): string | null {
  return date ? date.toISOString() : null;
}

/**
 * A message field the contract always sets (proto3 makes every message field optional in
 * TypeScript). A reply without it is a fault of the service, answered as an internal error.
 */
export function required<T>(value: T | undefined, field: string): T {
  if (value === undefined) throw new Error(`the service's reply has no ${field}`);
  return value;
}
