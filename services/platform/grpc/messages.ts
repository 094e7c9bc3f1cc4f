/**
 * Records -> protobuf messages without copying them field by field: ts-proto's optional fields are
 * `undefined` when unset, where records (rows) say `null`. Dates, Buffers and arrays pass as they are.
 * Enums and renamed fields are still written out by the mapper, beside the spread.
 */
export type WithoutNulls<T> = T extends Date | Buffer
  ? T
  : T extends readonly (infer U)[]
    ? WithoutNulls<U>[]
    : T extends object
      ? { [K in keyof T]: null extends T[K] ? WithoutNulls<Exclude<T[K], null>> | undefined : WithoutNulls<T[K]> }
      : T;

export function withoutNulls<T>(value: T): WithoutNulls<T> {
  return convert(value) as WithoutNulls<T>;
}

function convert(value: unknown): unknown {
  if (value === null) return undefined;
  if (Array.isArray(value)) return value.map(convert);
  if (typeof value !== 'object' || value instanceof Date || Buffer.isBuffer(value)) return value;
  // A plain loop: Object.fromEntries(Object.entries(...).map(...)) allocates two arrays per field,
  // and every message of every reply passes through here.
  const converted: Record<string, unknown> = {};
  for (const key of Object.keys(value)) converted[key] = convert((value as Record<string, unknown>)[key]);
  return converted;
}
