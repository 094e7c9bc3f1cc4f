import { IdentifierType as IdentifierTypeEnum } from '../../gen/referral/common/v1/common';
import { type EnumName, enumNames } from './enums';
import { type FieldViolation, invalidFields } from './errors';

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

interface IdentifierRule {
  pattern: RegExp;
  caseInsensitive: boolean;
  description: string;
}

const BASE58 = '1-9A-HJ-NP-Za-km-z';
const XRPL_ALPHABET = 'rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz';

const RULES: Record<IdentifierType, IdentifierRule> = {
  evm_address: { pattern: /^0x[0-9a-fA-F]{40}$/, caseInsensitive: true, description: '0x followed by 40 hex digits' },
  solana_address: {
    pattern: new RegExp(`^[${BASE58}]{32,44}$`),
    caseInsensitive: false,
    description: '32 to 44 base58 characters',
  },
  sui_address: { pattern: /^0x[0-9a-fA-F]{64}$/, caseInsensitive: true, description: '0x followed by 64 hex digits' },
  xrpl_address: {
    pattern: new RegExp(`^r[${XRPL_ALPHABET}]{24,34}$`),
    caseInsensitive: false,
    description: 'r followed by 24 to 34 base58 (XRPL alphabet) characters',
  },
  stellar_address: { pattern: /^G[A-Z2-7]{55}$/, caseInsensitive: false, description: 'G followed by 55 base32 characters' },
  email: {
    pattern: /^(?=.{3,254}$)[^\s@"<>()[\],;:]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/,
    caseInsensitive: true,
    description: 'an email address',
  },
};

export function isIdentifierType(value: string): value is IdentifierType {
  return Object.prototype.hasOwnProperty.call(RULES, value);
}

/** Returns the violations of one identifier; `path` prefixes the field names (e.g. "entries[3]"). */
export function identifierViolations(identifier: string, identifierType: string, path = ''): FieldViolation[] {
  const prefix = path ? `${path}.` : '';
  if (!isIdentifierType(identifierType)) {
    return [{ field: `${prefix}identifier_type`, reason: `must be one of ${IDENTIFIER_TYPES.join(', ')}` }];
  }
  const rule = RULES[identifierType];
  if (!rule.pattern.test(identifier)) {
    return [{ field: `${prefix}identifier`, reason: `is not a valid ${identifierType} (${rule.description})` }];
  }
  return [];
}

/** Validates and canonicalises one identifier, or throws a 400-mapped error naming the field. */
export function normalizeIdentifier(identifier: string, identifierType: string, path = ''): UserIdentifier {
  const violations = identifierViolations(identifier, identifierType, path);
  if (violations.length > 0) throw invalidFields(violations);
  return canonical(identifier, identifierType as IdentifierType);
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
  if (identifierViolations(identifier, identifierType).length > 0) return undefined;
  return canonical(identifier, identifierType as IdentifierType).identifier;
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
