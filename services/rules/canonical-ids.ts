import { type FieldViolation, InvalidArgumentError, MAX_LISTED_VIOLATIONS } from './errors';
import { canonicalSpelling, canonicalSpellingOfAnyType } from './identifiers';
import { isCanonicalUuid, isUuid } from './ids';

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
const join = (path: string, field: string) => (path ? `${path}.${field}` : field);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function walk(value: unknown, path: string, skip: ReadonlySet<string>, found: FieldViolation[]): void {
  if (found.length >= MAX_LISTED_VIOLATIONS) return;
  if (Array.isArray(value)) {
    value.forEach((item, index) => walk(item, `${path}[${index}]`, skip, found));
    return;
  }
  // Messages only: timestamps (Date) and bytes (Buffer) hold no ids.
  if (!isPlainObject(value)) return;
  // Every canonical form is the identifier itself or its lowercase, so lowercase needs no check (the common case).
  if (typeof value.identifier === 'string' && value.identifier !== value.identifier.toLowerCase()) {
    const type = value.identifierType;
    const canonical =
      typeof type === 'string' && type !== '' ? canonicalSpelling(value.identifier, type) : canonicalSpellingOfAnyType(value.identifier);
    if (canonical !== undefined && canonical !== value.identifier) {
      found.push({ field: join(path, 'identifier'), reason: 'must be written in the canonical form of its type (lowercase)' });
    }
  }
  for (const [key, item] of Object.entries(value)) {
    if (path === '' && skip.has(key)) continue;
    if (typeof item === 'string') {
      if (key.endsWith('Id') && isUuid(item) && !isCanonicalUuid(item)) {
        found.push({ field: join(path, snakeCase(key)), reason: 'must be a UUID written in lowercase, its canonical form' });
      }
    } else if (typeof item === 'object' && item !== null) {
      walk(item, join(path, snakeCase(key)), skip, found);
    }
  }
}

/**
 * Where a message (a request as ts-proto decodes it) names a resource or a user otherwise than
 * canonically: a field named `…Id` that holds a UUID must hold it in lowercase, and a user
 * (`identifier`, with `identifierType` beside it or not) valid for its type must be written in
 * that type's canonical form. Values that are no UUID or no valid identifier pass: the domain
 * finds nothing under them, or says why they are invalid. Fields are named as the API names
 * them (snake_case), e.g. `entries[3].identifier`.
 */
export function nonCanonicalIds(message: unknown, options: { skipFields?: readonly string[] } = {}): FieldViolation[] {
  const found: FieldViolation[] = [];
  walk(message, '', new Set(options.skipFields ?? []), found);
  return found;
}

/**
 * Defence in depth behind the gateway, which makes every identifier canonical at the HTTP edge:
 * a service refuses an id spelled otherwise (INVALID_ARGUMENT, NON_CANONICAL_ID) rather than store
 * it, compare it, or seal it into associated data as sent.
 */
export function assertCanonicalIds(message: unknown, options: { skipFields?: readonly string[] } = {}): void {
  const found = nonCanonicalIds(message, options);
  if (found.length === 0) return;
  const first = found[0]!;
  const more = found.length > 1 ? ` (and ${found.length - 1} more)` : '';
  throw new InvalidArgumentError('NON_CANONICAL_ID', `${first.field}: ${first.reason}${more}`, found);
}
