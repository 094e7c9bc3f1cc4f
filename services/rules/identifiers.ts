import { IdentifierType as IdentifierTypeEnum } from '../../gen/referral/common/v1/common';
import { type EnumName, enumNames } from './enums';
import { type FieldViolation, invalidFields, MAX_LISTED_VIOLATIONS } from './errors';

/**
 * A user is (identifier, identifier_type). Each type has its own format; identifiers whose
 * letter case carries no meaning are stored lowercase so that 0xABC... and 0xabc... are one user.
 * The types are the vocabulary referral.common.v1.IdentifierType; RULES below must give each a format.
 */
export type IdentifierType = EnumName<typeof IdentifierTypeEnum>;

export const IDENTIFIER_TYPES: readonly IdentifierType[] = enumNames(IdentifierTypeEnum);

export interface UserIdentifier {
  identifier: string;
  identifierType: IdentifierType;
}

/**
 * A type's format. A case-sensitive type also says what the start of one of its identifiers can
 * look like (`prefix`), so that a search prefix is kept as typed only when it could begin one.
 */
type IdentifierRule = { pattern: RegExp; description: string } & ({ caseInsensitive: true } | { caseInsensitive: false; prefix: RegExp });

const BASE58 = '1-9A-HJ-NP-Za-km-z';
const XRPL_ALPHABET = 'rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz';

const RULES: Record<IdentifierType, IdentifierRule> = {
  evm_address: { pattern: /^0x[0-9a-fA-F]{40}$/, caseInsensitive: true, description: '0x followed by 40 hex digits' },
  solana_address: {
    pattern: new RegExp(`^[${BASE58}]{32,44}$`),
    caseInsensitive: false,
    prefix: new RegExp(`^[${BASE58}]{0,44}$`),
    description: '32 to 44 base58 characters',
  },
  sui_address: { pattern: /^0x[0-9a-fA-F]{64}$/, caseInsensitive: true, description: '0x followed by 64 hex digits' },
  xrpl_address: {
    pattern: new RegExp(`^r[${XRPL_ALPHABET}]{24,34}$`),
    caseInsensitive: false,
    prefix: new RegExp(`^(r[${XRPL_ALPHABET}]{0,34})?$`),
    description: 'r followed by 24 to 34 base58 (XRPL alphabet) characters',
  },
  stellar_address: {
    pattern: /^G[A-Z2-7]{55}$/,
    caseInsensitive: false,
    prefix: /^(G[A-Z2-7]{0,55})?$/,
    description: 'G followed by 55 base32 characters',
  },
  email: {
    pattern: /^(?=.{3,254}$)[^\s@"<>()[\],;:]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/,
    caseInsensitive: true,
    description: 'an email address',
  },
};

/** The order in which an identifier given without its type is tried (an xrpl address can also read as base58, so solana last). */
const INFERRED_ORDER: readonly IdentifierType[] = ['evm_address', 'sui_address', 'email', 'stellar_address', 'xrpl_address', 'solana_address'];

/**
 * The type of an identifier given without one (the @fuul/sdk's affiliate-portal calls send only
 * `user_identifier`): the first of INFERRED_ORDER it is valid for, undefined when none.
 */
export function inferIdentifierType(identifier: string): IdentifierType | undefined {
  return INFERRED_ORDER.find((type) => RULES[type].pattern.test(identifier));
}

export function isIdentifierType(value: string): value is IdentifierType {
  return Object.prototype.hasOwnProperty.call(RULES, value);
}

export type CheckedIdentifier = { user: UserIdentifier; violations: [] } | { user: undefined; violations: FieldViolation[] };

/**
 * One identifier, checked against its type's format: its canonical form, or the violations
 * (`path` prefixes the field names, e.g. "entries[3]").
 */
export function checkIdentifier(identifier: string, identifierType: string, path = ''): CheckedIdentifier {
  const prefix = path ? `${path}.` : '';
  if (!isIdentifierType(identifierType)) {
    return { user: undefined, violations: [{ field: `${prefix}identifier_type`, reason: `must be one of ${IDENTIFIER_TYPES.join(', ')}` }] };
  }
  const rule = RULES[identifierType];
  if (!rule.pattern.test(identifier)) {
    return { user: undefined, violations: [{ field: `${prefix}identifier`, reason: `is not a valid ${identifierType} (${rule.description})` }] };
  }
  return { user: canonical(identifier, identifierType), violations: [] };
}

/** Returns the violations of one identifier; `path` prefixes the field names (e.g. "entries[3]"). */
export function identifierViolations(identifier: string, identifierType: string, path = ''): FieldViolation[] {
  return checkIdentifier(identifier, identifierType, path).violations;
}

/** Validates and canonicalises one identifier, or throws a 400-mapped error naming the field. */
export function normalizeIdentifier(identifier: string, identifierType: string, path = ''): UserIdentifier {
  const checked = checkIdentifier(identifier, identifierType, path);
  if (!checked.user) throw invalidFields(checked.violations);
  return checked.user;
}

/**
 * Many users checked at once, each named by its index (`entries[3].identifier`): every one in its
 * canonical form, or how many are invalid with the violations of the first ones (at most
 * MAX_LISTED_VIOLATIONS), for the caller to refuse the whole list with its own code.
 */
export function checkIdentifiers(
  users: ReadonlyArray<{ identifier: string; identifierType: string }>,
  path: string,
): { users: UserIdentifier[]; invalid: 0 } | { users: undefined; invalid: number; violations: FieldViolation[] } {
  const valid: UserIdentifier[] = [];
  const violations: FieldViolation[] = [];
  let invalid = 0;
  users.forEach((user, index) => {
    const checked = checkIdentifier(user.identifier, user.identifierType, `${path}[${index}]`);
    if (checked.user) valid.push(checked.user);
    else {
      invalid += 1;
      if (violations.length < MAX_LISTED_VIOLATIONS) violations.push(...checked.violations);
    }
  });
  return invalid === 0 ? { users: valid, invalid } : { users: undefined, invalid, violations };
}

/** The stored form of an identifier already known to be valid. */
export function canonical(identifier: string, identifierType: IdentifierType): UserIdentifier {
  return {
    identifier: RULES[identifierType].caseInsensitive ? identifier.toLowerCase() : identifier,
    identifierType,
  };
}

/**
 * How an identifier is written canonically when it is valid for its type; undefined when it is
 * not valid (or the type is unknown), so the caller can report why.
 */
export function canonicalSpelling(identifier: string, identifierType: string): string | undefined {
  return checkIdentifier(identifier, identifierType).user?.identifier;
}

/**
 * The canonical spelling of an identifier whose type is not given (a path segment such as
 * DELETE …/entries/{userIdentifier}): lowercase when it is valid for a case-insensitive type,
 * otherwise unchanged. This is the canonical form under every type the identifier is valid for,
 * because no string is valid both for a case-insensitive type and a case-sensitive one: evm and
 * sui addresses start with "0x" and an email holds an "@", while solana's base58 has no "0" and
 * no "@", an xrpl address starts with "r" and a stellar one with "G".
 */
export function canonicalSpellingOfAnyType(identifier: string): string {
  // Every canonical form is the identifier itself or its lowercase: lowercase input is canonical (the common case, no regex).
  if (identifier === identifier.toLowerCase()) return identifier;
  const caseInsensitive = IDENTIFIER_TYPES.some((type) => RULES[type].caseInsensitive && RULES[type].pattern.test(identifier));
  return caseInsensitive ? identifier.toLowerCase() : identifier;
}

/**
 * The same rule for the start of an identifier whose type is not given (a search prefix, such as
 * the affiliate list's `q`), for a prefix search over canonical identifiers: lowercase unless an
 * identifier of a case-sensitive type could begin with it as typed, in which case it is kept (its
 * letter case then means something). So a wallet pasted with its checksum letter case, whole or in
 * part ("0xAbC…": no solana, XRPL or Stellar identifier holds a 0), or an email in capitals, finds
 * the lowercase identifier stored, and "So1anaPrefix" finds only the solana address spelled so.
 */
export function canonicalPrefixOfAnyType(prefix: string): string {
  if (prefix === prefix.toLowerCase()) return prefix;
  const caseSensitive = IDENTIFIER_TYPES.some((type) => {
    const rule = RULES[type];
    return !rule.caseInsensitive && rule.prefix.test(prefix);
  });
  return caseSensitive ? prefix : prefix.toLowerCase();
}
