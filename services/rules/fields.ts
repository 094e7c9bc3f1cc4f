import { type EnumName, enumName, enumNames, type ProtoEnum } from './enums';
import { invalidFields } from './errors';

/**
 * What a request must carry, checked in one layer: each service's gRPC handlers resolve proto3's
 * optionality here (every message field may be absent on the wire), so domain functions take
 * required values and never check for a missing one. Each refusal is INVALID_ARGUMENT naming the
 * field as the API names it (snake_case, e.g. `actor.api_key_id`). Rules about a present value's
 * content stay in the domain.
 */

/** A field the contract requires, e.g. a request's `user` message. */
export function requireField<T>(value: T | undefined | null, field: string): T {
  if (value === undefined || value === null) throw invalidFields([{ field, reason: 'is required' }]);
  return value;
}

/** A string the contract requires: proto3 sends an unset string as "", so empty is missing too. */
export function requireText(value: string | undefined, field: string, reason = 'is required'): string {
  if (value === undefined || value === '') throw invalidFields([{ field, reason }]);
  return value;
}

/** An enum the caller must set: unset (0) or a number this build does not know is refused. */
export function requireEnum<E extends ProtoEnum>(protoEnum: E, value: number, field: string): EnumName<E> {
  const name = enumName(protoEnum, value);
  if (name !== undefined) return name;
  throw invalidFields([{ field, reason: `${value === 0 ? 'is required: ' : 'must be '}one of ${enumNames(protoEnum).join(', ')}` }]);
}

/** An optional enum: unset stays undefined; a number this build does not know is refused. */
export function optionalEnum<E extends ProtoEnum>(protoEnum: E, value: number | undefined, field: string): EnumName<E> | undefined {
  return value === undefined || value === 0 ? undefined : requireEnum(protoEnum, value, field);
}

/**
 * An enum of a message the domain validates whole (a tax form), so that one answer lists every
 * problem: the name, undefined when unset, or the unknown number as text (which the domain's
 * check refuses as "must be one of ...").
 */
export function enumInput<E extends ProtoEnum>(protoEnum: E, value: number | undefined): string | undefined {
  if (value === undefined || value === 0) return undefined;
  return enumName(protoEnum, value) ?? String(value);
}
