import { SealedValueError, type SealedValue } from '../../platform/crypto/field-cipher';
import { canonicalSpellingOfAnyType, type UserIdentifier } from '../../rules/identifiers';
import type { RecordBinding, TinVault } from './tin-vault';

/**
 * Letters of a project id whose every upper/lower-case combination is tried (2^16 = 65,536 opens
 * at most, well under a second). A UUID holds 12 letters on average; beyond the bound only the
 * all-lowercase and all-uppercase spellings are tried.
 */
const MAX_CASE_VARIANT_LETTERS = 16;

/** What one stored tax id needs. */
export type SealVerdict =
  /** It opens under the canonical binding: nothing to do. */
  | { kind: 'sound' }
  /** It opens only under an earlier spelling of its binding: re-seal `tin` under the canonical one. */
  | { kind: 'repairable'; tin: string }
  /** The key it names is not configured: nothing can be said about it until the key is back. */
  | { kind: 'key_missing' }
  /** It opens under no spelling of its binding: the value is lost to this record. */
  | { kind: 'unreadable' };

/**
 * Before every identifier was made canonical at the edge, a tax id could be sealed with the
 * project id (or, in principle, the user) as a caller had spelled it, e.g. in uppercase, while
 * the row stored the canonical value: such a value opens under no binding the service builds.
 * This finds the spelling it was sealed under, trying the likely ones first.
 */
export function judgeSeal(vault: TinVault, sealed: SealedValue, stored: RecordBinding): SealVerdict {
  if (!vault.hasKey(sealed.keyId)) return { kind: 'key_missing' };
  const opened = tryOpen(() => vault.openRecordTin(sealed, stored));
  if (opened !== undefined) return { kind: 'sound' };
  for (const binding of earlierSpellings(stored)) {
    const tin = tryOpen(() => vault.openRecordTinSpelledAs(sealed, binding));
    if (tin !== undefined) return { kind: 'repairable', tin };
  }
  return { kind: 'unreadable' };
}

/** The record's binding in canonical values: what sealing uses from now on. */
export function canonicalBinding(stored: RecordBinding): RecordBinding {
  return {
    projectId: stored.projectId.toLowerCase(),
    user: { identifier: canonicalSpellingOfAnyType(stored.user.identifier), identifierType: stored.user.identifierType },
    recordId: stored.recordId.toLowerCase(),
  };
}

function tryOpen(open: () => string): string | undefined {
  try {
    return open();
  } catch (error) {
    if (error instanceof SealedValueError) return undefined;
    throw error;
  }
}

function* earlierSpellings(stored: RecordBinding): Generator<RecordBinding> {
  const canonical = canonicalBinding(stored);
  // Users were made canonical by the service all along; a row holding another spelling is tried as stored too.
  const users: UserIdentifier[] = canonical.user.identifier === stored.user.identifier ? [canonical.user] : [stored.user, canonical.user];
  for (const projectId of projectIdSpellings(canonical.projectId)) {
    for (const user of users) {
      if (projectId === canonical.projectId && user === canonical.user) continue; // judged already
      yield { projectId, user, recordId: canonical.recordId };
    }
  }
}

/** Lowercase and uppercase first, then every mix of letter cases (when there are few enough letters). */
function* projectIdSpellings(projectId: string): Generator<string> {
  yield projectId;
  yield projectId.toUpperCase();
  const letters = [...projectId].flatMap((character, index) => (/[a-f]/.test(character) ? [index] : []));
  if (letters.length > MAX_CASE_VARIANT_LETTERS) return;
  const all = (1 << letters.length) - 1;
  for (let mask = 1; mask < all; mask += 1) {
    const characters = [...projectId];
    letters.forEach((position, bit) => {
      if (mask & (1 << bit)) characters[position] = characters[position]!.toUpperCase();
    });
    yield characters.join('');
  }
}
