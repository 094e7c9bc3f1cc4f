/** Timestamps leave the API as ISO-8601 UTC strings. */
export function iso(date: Date | undefined): string {
  return (date ?? new Date(0)).toISOString();
}

export function isoOrNull(date: Date | undefined): string | null {
  return date ? date.toISOString() : null;
}
