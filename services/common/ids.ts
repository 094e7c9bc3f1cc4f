const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Resource ids are UUIDs; anything else can name no resource (and must never reach a uuid cast). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
