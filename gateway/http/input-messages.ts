import { z } from 'zod';

/**
 * What the API's 400s say when a value matches none of the shapes a field accepts. Zod's own words
 * for a union ("Invalid input") name no shape; every request part is parsed with `inputError`
 * (gateway/http/route.ts), which words such an issue as the shapes expected:
 *
 *   affiliate: expected {"fixed": "<base units as a decimal string>"} or {"bps": <0-10000>}
 *   value: expected a number, a string or a boolean
 *   form_type: expected "w9", "w8ben" or "w8bene"
 *
 * The sketch of each shape is derived from its schema (keys, literals, number bounds); a string
 * whose meaning its type cannot say carries a short hint, registered beside it with `hinted`.
 */

/** Short hints for values, kept out of the OpenAPI document (which reads zod's global registry only). */
const inputHints = z.registry<{ hint: string }>();

/** Gives a schema the words a union's message uses for it ("base units as a decimal string"); clones made by describe() keep it. */
export function hinted<T extends z.ZodType>(schema: T, hint: string): T {
  inputHints.add(schema, { hint });
  return schema;
}

type AnySchema = z.core.$ZodType;
interface Def {
  type: string;
  innerType?: AnySchema;
  in?: AnySchema;
  shape?: Record<string, AnySchema>;
  options?: readonly AnySchema[];
  values?: readonly unknown[];
  entries?: Record<string, unknown>;
  element?: AnySchema;
}

const defOf = (schema: AnySchema) => schema._zod.def as unknown as Def;
const hintOf = (schema: AnySchema) => inputHints.get(schema)?.hint;

/** Wrappers that change nothing about the shape a client sends. */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional', 'catch']);

function unwrapped(schema: AnySchema): AnySchema {
  let current = schema;
  for (let depth = 0; depth < 16; depth++) {
    if (hintOf(current)) return current;
    const def = defOf(current);
    if (WRAPPERS.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === 'pipe' && def.in) current = def.in;
    else return current;
  }
  return current;
}

const MAX_KEYS_SHOWN = 4;

function numberRange(schema: AnySchema): { integer: boolean; min?: number; max?: number } {
  const number = schema as unknown as z.ZodNumber;
  const integer = number.isInt === true;
  const bound = (value: number | null | undefined) =>
    value === null || value === undefined || !Number.isFinite(value) || Math.abs(value) >= Number.MAX_SAFE_INTEGER ? undefined : value;
  return { integer, min: bound(number.minValue), max: bound(number.maxValue) };
}

/** What a value must look like, sketched as JSON: `{"bps": <0-10000>}`, `"<uuid>"`, `"erc20"|"native"`. */
export function sketch(input: AnySchema, depth = 0): string {
  const schema = unwrapped(input);
  const hint = hintOf(schema);
  const def = defOf(schema);
  switch (def.type) {
    case 'string': {
      const format = (schema as unknown as z.ZodString).format;
      return `"<${hint ?? (format && format !== 'regex' ? format : 'text')}>"`;
    }
    case 'number': {
      if (hint) return `<${hint}>`;
      const { integer, min, max } = numberRange(schema);
      if (min !== undefined && max !== undefined) return `<${min}-${max}>`;
      return integer ? '<integer>' : '<number>';
    }
    case 'boolean':
      return 'true|false';
    case 'null':
      return 'null';
    case 'literal':
      return (def.values ?? []).map((value) => JSON.stringify(value)).join('|');
    case 'enum':
      return Object.values(def.entries ?? {})
        .map((value) => JSON.stringify(value))
        .join('|');
    case 'array':
      return depth > 2 || !def.element ? '[…]' : `[${sketch(def.element, depth + 1)}, …]`;
    case 'object': {
      const keys = Object.keys(def.shape ?? {});
      if (depth > 2) return '{…}';
      const shown = keys.slice(0, MAX_KEYS_SHOWN).map((key) => `${JSON.stringify(key)}: ${sketch(def.shape![key]!, depth + 1)}`);
      return `{${[...shown, ...(keys.length > MAX_KEYS_SHOWN ? ['…'] : [])].join(', ')}}`;
    }
    case 'union':
      return (def.options ?? []).map((option) => sketch(option, depth + 1)).join(' or ');
    default:
      return hint ? `<${hint}>` : '…';
  }
}

/** One option of a union, as a sentence names it: "a number", "a string", or its sketch. */
function noun(input: AnySchema): string {
  const schema = unwrapped(input);
  if (hintOf(schema)) return sketch(schema);
  switch (defOf(schema).type) {
    case 'string':
      return 'a string';
    case 'number': {
      const { integer, min, max } = numberRange(schema);
      const kind = integer ? 'a whole number' : 'a number';
      return min !== undefined && max !== undefined ? `${kind} from ${min} to ${max}` : kind;
    }
    case 'boolean':
      return 'a boolean';
    default:
      return sketch(schema);
  }
}

/** "a", "a or b", "a, b or c". */
export function oneOf(words: readonly string[]): string {
  const distinct = [...new Set(words)];
  if (distinct.length <= 1) return distinct[0] ?? '';
  return `${distinct.slice(0, -1).join(', ')} or ${distinct[distinct.length - 1]}`;
}

type RawIssue = z.core.$ZodRawIssue & {
  inst?: AnySchema;
  note?: string;
  options?: readonly unknown[];
};

/**
 * The error customiser of every request part (`schema.safeParse(value, { error: inputError })`):
 * a union says which shapes it takes; anything else keeps zod's message (undefined).
 */
export const inputError: z.core.$ZodErrorMap = (issue) => {
  if (issue.code !== 'invalid_union') return undefined;
  const raw = issue as RawIssue;
  if (raw.note === 'No matching discriminator' && raw.options) {
    return `expected ${oneOf(raw.options.map((value) => JSON.stringify(value)))}`;
  }
  const options = raw.inst ? defOf(raw.inst).options : undefined;
  if (!options || options.length === 0) return undefined;
  return `expected ${oneOf(options.map(noun))}`;
};
