import { type EnumName, enumName, type EnumValue, type ProtoEnum } from '../../services/rules/enums';

/**
 * gRPC messages -> the JSON the API documents, without copying fields one by one: keys become
 * snake_case, unset optional fields null, timestamps ISO-8601 UTC strings, nested messages the
 * same way. Vocabularies (enums) and 64-bit counts are written out by each presenter beside it.
 * Nothing here narrows a type without checking: a field the contract always sets, and a reply
 * lacks, is a fault of the service (a 500 with a generic message), never a made-up value.
 */

/** `chapter3Status` -> `chapter3_status`, at the type level. */
type SnakeKey<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeKey<Tail>}`
  : S;

type PresentedValue<V> = V extends Date ? string : V extends readonly (infer U)[] ? PresentedValue<U>[] : V extends object ? Presented<V> : V;

/** A message as JSON; the keys in R are required by the contract, so never null. */
export type Presented<T, R extends keyof T = never> = {
  -readonly [K in keyof T & string as SnakeKey<K>]-?: K extends R
    ? PresentedValue<NonNullable<T[K]>>
    : PresentedValue<NonNullable<T[K]>> | (undefined extends T[K] ? null : never);
};

const snakeKeys = new Map<string, string>();
/** Message keys are the contract's few field names: each is converted once. */
const snakeKey = (key: string) => {
  let snake = snakeKeys.get(key);
  if (snake === undefined) {
    snake = key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    if (snakeKeys.size < 10_000) snakeKeys.set(key, snake);
  }
  return snake;
};

function presentValue(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(presentValue);
  if (typeof value === 'object') return presentObject(value as Record<string, unknown>);
  return value;
}

function presentObject(message: Record<string, unknown>): Record<string, unknown> {
  const presented: Record<string, unknown> = {};
  for (const key of Object.keys(message)) presented[snakeKey(key)] = presentValue(message[key]);
  return presented;
}

/**
 * The message in the API's shape. `requiredFields` names the message-typed fields (timestamps,
 * nested messages) the contract always sets: they are checked here, and typed non-null.
 */
export function snakeCase<T extends object, R extends keyof T & string = never>(message: T, requiredFields: readonly R[] = []): Presented<T, R> {
  for (const field of requiredFields) required(message[field] ?? undefined, snakeKey(field));
  return presentObject(message as Record<string, unknown>) as Presented<T, R>;
}

/**
 * A message field the contract always sets (proto3 makes every message field optional in
 * TypeScript). A reply without it is a fault of the service, answered as an internal error.
 */
export function required<T>(value: T | undefined, field: string): T {
  if (value === undefined) throw new Error(`the service's reply has no ${field}`);
  return value;
}

/** A vocabulary field the contract always sets, by its API name ("w9"); unset or unknown is a fault of the service. */
export function nameOf<E extends ProtoEnum>(protoEnum: E, value: EnumValue<E>, field: string): EnumName<E> {
  return required(enumName(protoEnum, value), field);
}

/** An optional vocabulary field: its API name, or null when unset. A number this build does not know is a fault. */
export function optionalNameOf<E extends ProtoEnum>(protoEnum: E, value: EnumValue<E> | undefined, field: string): EnumName<E> | null {
  return value === undefined || value === 0 ? null : nameOf(protoEnum, value, field);
}

/** A 64-bit count (a decimal string on the wire, forceLong=string) as a JSON number; only counts far below 2^53 use this. */
export function count(value: string, field: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 0) throw new Error(`the service's reply has no count in ${field}`);
  return parsed;
}

/** `postal_code` -> `postalCode`, at the type level. */
type CamelKey<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelKey<Tail>>}` : S;

export type CamelCased<T> = T extends readonly (infer U)[]
  ? CamelCased<U>[]
  : T extends object
    ? { [K in keyof T & string as CamelKey<K>]: CamelCased<T[K]> }
    : T;

const camelKey = (key: string) => key.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

/**
 * The other direction: a validated JSON body (snake_case) as the gRPC request's fields (camelCase).
 * Values pass unchanged; vocabularies are converted to their enums by the caller.
 */
export function camelCase<T>(body: T): CamelCased<T> {
  const convert = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(convert);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [camelKey(key), convert(item)]));
  };
  return convert(body) as CamelCased<T>;
}
