import type { UserIdentifier } from '../../rules/identifiers';

/**
 * Many users as two comma-separated lists of one length (identifier types, identifiers), for a
 * statement that splits them with `unnest(string_to_array($n, ','), string_to_array($m, ',')) WITH
 * ORDINALITY`: pg's escaping of array parameters cost more than the statements that read them
 * (attribution, the tax batch status). A comma is in no valid identifier of any type
 * (../identifiers.ts) and every user is checked before it gets here; one that was not would shift
 * every later user, so it is refused.
 */
export function userLists(users: readonly UserIdentifier[]): { types: string; identifiers: string } {
  const types = new Array<string>(users.length);
  const identifiers = new Array<string>(users.length);
  for (let index = 0; index < users.length; index += 1) {
    const user = users[index]!;
    if (user.identifier.includes(',') || user.identifierType.includes(','))
      throw new Error('an identifier with a comma reached a statement that takes comma lists');
    types[index] = user.identifierType;
    identifiers[index] = user.identifier;
  }
  return { types: types.join(','), identifiers: identifiers.join(',') };
}
