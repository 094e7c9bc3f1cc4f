import { canonicalPrefixOfAnyType, canonicalSpellingOfAnyType } from '../../../services/rules/identifiers';

/**
 * The canonical form of a search prefix over user identifiers (the affiliate list's `q`): the
 * stored identifiers of case-insensitive types are lowercase, so a prefix is lowercased unless an
 * identifier of a case-sensitive type (solana, XRPL, Stellar) could begin with it as typed.
 */
describe('canonicalPrefixOfAnyType', () => {
  it.each([
    ['0x8ba1f109551bD432803012645Ac136ddd64DBA72', '0x8ba1f109551bd432803012645ac136ddd64dba72', 'a whole checksummed evm address'],
    ['0x8BA1F1', '0x8ba1f1', 'the start of one (no case-sensitive identifier holds a 0)'],
    ['0X8ba1', '0x8ba1', 'an uppercase 0X'],
    ['Mixed.Case@Example.COM', 'mixed.case@example.com', 'an email'],
    ['Alice', 'alice', 'a text no case-sensitive identifier can begin with (base58 has no l)'],
  ])('lowercases %p (%s)', (prefix, expected) => {
    expect(canonicalPrefixOfAnyType(prefix)).toBe(expected);
  });

  it.each([
    ['7EcDhSYGxXys', 'the start of a solana address'],
    ['rHb9CJAWyB4', 'the start of an XRPL address'],
    ['GAAZI4TCR3TY', 'the start of a Stellar address'],
    ['Ben', 'a name that could begin a solana address'],
    ['already lowercase', 'a lowercase text'],
  ])('keeps %p as typed (%s)', (prefix) => {
    expect(canonicalPrefixOfAnyType(prefix)).toBe(prefix);
  });

  it('agrees with the whole-identifier rule on every whole identifier', () => {
    for (const identifier of [
      '0x8ba1f109551bD432803012645Ac136ddd64DBA72',
      'Ada@Example.com',
      '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV',
      'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh',
    ]) {
      expect(canonicalPrefixOfAnyType(identifier)).toBe(canonicalSpellingOfAnyType(identifier));
    }
  });
});
