import express, { type Request, type RequestHandler } from 'express';
import { HttpError } from './errors';

const EXACT_NUMBERS = Symbol('exactNumbers');
const MAX_DEPTH = 256;

type WithExactNumbers = Request & { [EXACT_NUMBERS]?: Map<string, string> };

/**
 * A JSON string (kept as it is) or a JSON number (swapped): one pass of the regular expression
 * engine over the text, far faster than a loop over its characters. A string is unrolled
 * ("[^"\\]*(?:\\.[^"\\]*)*") so a long one costs no backtracking. What matches neither (a bad
 * token like 01 or 1.) is left for JSON.parse to refuse.
 */
const TOKENS = /"[^"\\]*(?:\\.[^"\\]*)*"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/g;

const invalidJson = () => new HttpError(400, 'INVALID_JSON', 'the request body is not valid JSON');

interface Place {
  parent: Place | undefined;
  key: string | number;
}

/** A placeholder, or an object or array that may hold one: what the walk must visit. */
const mayHoldNumber = (value: unknown) => (typeof value === 'string' ? value.charCodeAt(0) === 0 : value !== null && typeof value === 'object');

const pathOf = (place: Place | undefined): string => {
  const keys: Array<string | number> = [];
  for (let at = place; at; at = at.parent) keys.push(at.key);
  return JSON.stringify(keys.reverse());
};

/**
 * Parses JSON as JSON.parse does, and also keeps the text of every number as it was written, by
 * its place in the document: JSON.parse reads 12345678901234567890 or 0.1000000000000000000001
 * into a double and the digits past the 17th are gone before anyone can look. Each number token
 * (outside strings) is swapped for a placeholder string before JSON.parse and put back as a number
 * after, its text noted. A placeholder starts with NUL, which no string of the body can hold
 * (written as \u0000 it is refused here, as everywhere: PostgreSQL cannot store it).
 */
export function parseExactJson(text: string): { value: unknown; numbers: Map<string, string> } {
  if (text.includes('\\u0000')) throw new HttpError(400, 'VALIDATION_FAILED', 'the body must not contain the NUL character (\\u0000)');
  const tokens: string[] = [];
  const swapped = text.replace(TOKENS, (token) => {
    if (token.charCodeAt(0) === 34) return token;
    tokens.push(token);
    return `"\\u0000${tokens.length - 1}"`;
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(swapped);
  } catch {
    throw invalidJson();
  }
  const numbers = new Map<string, string>();
  if (tokens.length === 0) return { value: parsed, numbers };
  const restore = (value: unknown, place: Place | undefined, depth: number): unknown => {
    if (typeof value === 'string') {
      if (value.charCodeAt(0) !== 0) return value;
      const token = tokens[Number(value.slice(1))]!;
      numbers.set(pathOf(place), token);
      return Number(token);
    }
    if (value === null || typeof value !== 'object') return value;
    // Past any body the API reads (the route's parsing refuses more than 64 levels anyway), and before recursion could exhaust the stack.
    if (depth > MAX_DEPTH) throw new HttpError(400, 'VALIDATION_FAILED', `the body nests more than ${MAX_DEPTH} levels of objects and arrays`);
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index += 1) {
        const item: unknown = value[index];
        if (!mayHoldNumber(item)) continue;
        const restored = restore(item, { parent: place, key: index }, depth + 1);
        if (restored !== item) value[index] = restored;
      }
      return value;
    }
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const item = object[key];
      if (!mayHoldNumber(item)) continue;
      const restored = restore(item, { parent: place, key }, depth + 1);
      // defineProperty: a "__proto__" key stays an own property, as JSON.parse made it.
      if (restored !== item) Object.defineProperty(object, key, { value: restored, writable: true, enumerable: true, configurable: true });
    }
    return value;
  };
  return { value: restore(parsed, undefined, 0), numbers };
}

/**
 * The body parser of a route whose numbers must stay exact (RouteDeclaration.exactNumbers): the
 * body as express.json would give it, and each number's text for exactNumberAt.
 */
export function exactJsonParser(limit: string): RequestHandler[] {
  return [
    express.text({ type: () => true, limit }),
    (req, _res, next) => {
      const text = typeof req.body === 'string' ? req.body : '';
      if (text.trim() === '') {
        req.body = undefined;
        next();
        return;
      }
      const { value, numbers } = parseExactJson(text);
      req.body = value;
      (req as WithExactNumbers)[EXACT_NUMBERS] = numbers;
      next();
    },
  ];
}

/** The text of the number at `path` of the body (e.g. ['traits', 3, 'value']), when the route parsed it exactly and a number is there. */
export function exactNumberAt(req: Request, path: ReadonlyArray<string | number>): string | undefined {
  return (req as WithExactNumbers)[EXACT_NUMBERS]?.get(JSON.stringify(path));
}
