/**
 * Vocabularies live in the .proto files as enums (generated with removeEnumPrefix: FORM_TYPE_W9 is
 * FormType.W9). Everywhere else, in JSON, in SQL and in domain code, a value is spelled as its
 * name in lowercase ("w9"). These helpers derive the names, and convert between the two, from
 * the generated enum itself: a value added to a .proto file is offered by every list derived here,
 * and every exhaustive `Record<EnumName<…>, …>` that lacks it stops compiling.
 */

/** A numeric TypeScript enum as ts-proto generates it (names to numbers, numbers back to names). */
export type ProtoEnum = { [name: string]: string | number };

/** The members that are no value of the vocabulary: proto3's zero default, and ts-proto's unknown number. */
type Unnamed = 'UNSPECIFIED' | 'UNRECOGNIZED';

/** The API spelling of an enum's values: `EnumName<typeof FormType>` is 'w9' | 'w8ben' | 'w8bene'. */
export type EnumName<E extends ProtoEnum> = Lowercase<Exclude<Extract<keyof E, string>, Unnamed>>;

/**
 * The API spelling of every enum of a generated enums module, by the enum's name: a service's
 * vocabulary.ts names each of its vocabularies from it (`Vocabularies<typeof enums>['FormType']` is
 * 'w9' | 'w8ben' | 'w8bene'); the module's other exports (its JSON helpers) are no vocabularies.
 */
export type Vocabularies<M> = { [K in keyof M as M[K] extends ProtoEnum ? K : never]: M[K] extends ProtoEnum ? EnumName<M[K]> : never };

/** The enum's own type, e.g. FormType (its numeric members). */
export type EnumValue<E extends ProtoEnum> = E[Extract<keyof E, string>] & number;

const UNNAMED: ReadonlySet<string> = new Set<Unnamed>(['UNSPECIFIED', 'UNRECOGNIZED']);

const namesCache = new WeakMap<object, readonly string[]>();

/**
 * Every name of the vocabulary, in the order of the .proto file; typed as a non-empty tuple, as
 * `z.enum` wants it.
 */
export function enumNames<E extends ProtoEnum>(protoEnum: E): readonly [EnumName<E>, ...EnumName<E>[]] {
  let names = namesCache.get(protoEnum);
  if (!names) {
    names = Object.keys(protoEnum)
      .filter((key) => Number.isNaN(Number(key)) && !UNNAMED.has(key))
      .map((key) => key.toLowerCase());
    if (names.length === 0) throw new Error('an enum without values is no vocabulary');
    namesCache.set(protoEnum, names);
  }
  return names as readonly [EnumName<E>, ...EnumName<E>[]];
}

/** Both directions of a vocabulary, derived once per enum: every message of every reply converts through them. */
interface EnumLookup {
  valueOf: Map<string, number>;
  nameOf: Map<number, string>;
}

const lookups = new WeakMap<object, EnumLookup>();

function lookupOf(protoEnum: ProtoEnum): EnumLookup {
  let lookup = lookups.get(protoEnum);
  if (!lookup) {
    lookup = { valueOf: new Map(), nameOf: new Map() };
    for (const [key, value] of Object.entries(protoEnum)) {
      if (typeof value !== 'number' || UNNAMED.has(key)) continue;
      lookup.valueOf.set(key.toLowerCase(), value);
      lookup.nameOf.set(value, key.toLowerCase());
    }
    lookups.set(protoEnum, lookup);
  }
  return lookup;
}

/** The enum value of a name: `enumValue(FormType, 'w9')` is FormType.W9. */
export function enumValue<E extends ProtoEnum>(protoEnum: E, name: EnumName<E>): EnumValue<E> {
  return (lookupOf(protoEnum).valueOf.get(name) ?? protoEnum[name.toUpperCase()]) as EnumValue<E>;
}

/**
 * The name of an enum value, or undefined for UNSPECIFIED (the field was not set) and for a number
 * this build does not know: the caller decides whether that is a missing field or a fault.
 */
export function enumName<E extends ProtoEnum>(protoEnum: E, value: EnumValue<E> | number): EnumName<E> | undefined {
  return lookupOf(protoEnum).nameOf.get(value) as EnumName<E> | undefined;
}

/** The value of an optional name: undefined and null stay unset. */
export function optionalEnumValue<E extends ProtoEnum>(protoEnum: E, name: EnumName<E> | null | undefined): EnumValue<E> | undefined {
  return name === null || name === undefined ? undefined : enumValue(protoEnum, name);
}
