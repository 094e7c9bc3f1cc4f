const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Resource ids are UUIDs; anything else can name no resource (and must never reach a uuid cast). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** A UUID in its canonical spelling: lowercase (RFC 9562 reads any case as the same id, and writes lowercase). */
export function isCanonicalUuid(value: string): boolean {
  return CANONICAL_UUID.test(value);
}

/** The canonical spelling of an id: a UUID in lowercase; anything else unchanged (it names no resource). */
export function canonicalUuid(value: string): string {
  return isUuid(value) ? value.toLowerCase() : value;
}
