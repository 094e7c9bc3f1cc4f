import type { FieldViolation } from '../rules/errors';

/** A high surrogate not followed by a low one, or a low one not preceded by a high one (UTF-16 code units). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export const JSON_SAFETY_REASONS = {
  nul: 'must not contain the NUL character',
  nulInKey: 'object keys must not contain the NUL character',
  surrogate: 'must not contain a lone UTF-16 surrogate (text must be valid Unicode)',
  surrogateInKey: 'object keys must not contain a lone UTF-16 surrogate (text must be valid Unicode)',
  nonFinite: 'must be a finite number (this one is beyond the range of a double, e.g. 1e400)',
  depth: (maxDepth: number) => `nests more than ${maxDepth} levels of objects and arrays`,
};

interface Frame {
  value: unknown;
  /** Objects and arrays around this value (0 at the root). */
  depth: number;
  parent: Frame | undefined;
  /** The key or index under which the parent holds this value. */
  key: string | number | undefined;
}

function pathOf(frame: Frame, root: string): string {
  const parts: string[] = [];
  for (let at: Frame | undefined = frame; at && at.key !== undefined; at = at.parent) {
    const key = at.key;
    // Keys that are not plain names are written escaped, so a NUL or a lone surrogate never leaves as such.
    parts.push(typeof key === 'number' ? `[${key}]` : PLAIN_KEY.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`);
  }
  const joined = root + parts.reverse().join('');
  const path = joined.startsWith('.') ? joined.slice(1) : joined;
  return path || '(body)';
}

function stringProblem(text: string, inKey: boolean): string | undefined {
  if (text.includes('\u0000')) return inKey ? JSON_SAFETY_REASONS.nulInKey : JSON_SAFETY_REASONS.nul;
  if (LONE_SURROGATE.test(text)) return inKey ? JSON_SAFETY_REASONS.surrogateInKey : JSON_SAFETY_REASONS.surrogate;
  return undefined;
}

/**
 * The first place (depth first, in document order) where a parsed JSON value holds what
 * PostgreSQL cannot store, or what would not survive a round trip through JSON: the NUL character
 * (text and jsonb refuse it) or a lone UTF-16 surrogate (jsonb refuses it, text silently replaces
 * it) in a string or an object key; a number that is not finite (JSON.parse reads 1e400 as
 * Infinity, which JSON.stringify writes as null); or nesting deeper than `maxDepth` objects and
 * arrays. Iterative, so no nesting exhausts the stack. `root` prefixes the field names.
 */
export function findUnsafeJson(value: unknown, options: { maxDepth: number; root?: string }): FieldViolation | undefined {
  const root = options.root ?? '';
  const stack: Frame[] = [{ value, depth: 0, parent: undefined, key: undefined }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const current = frame.value;
    if (typeof current === 'string') {
      const problem = stringProblem(current, false);
      if (problem) return { field: pathOf(frame, root), reason: problem };
    } else if (typeof current === 'number') {
      if (!Number.isFinite(current)) return { field: pathOf(frame, root), reason: JSON_SAFETY_REASONS.nonFinite };
    } else if (current !== null && typeof current === 'object') {
      if (frame.depth >= options.maxDepth) return { field: pathOf(frame, root), reason: JSON_SAFETY_REASONS.depth(options.maxDepth) };
      const children: Frame[] = [];
      if (Array.isArray(current)) {
        current.forEach((item, index) => children.push({ value: item, depth: frame.depth + 1, parent: frame, key: index }));
      } else {
        for (const [key, item] of Object.entries(current)) {
          const child: Frame = { value: item, depth: frame.depth + 1, parent: frame, key };
          const problem = stringProblem(key, true);
          if (problem) return { field: pathOf(child, root), reason: problem };
          children.push(child);
        }
      }
      for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i]!);
    }
  }
  return undefined;
}
