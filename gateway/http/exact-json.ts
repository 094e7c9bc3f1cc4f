import express, { type Request, type RequestHandler } from 'express';
import { HttpError } from './errors';

/** What JSON allows as a number (RFC 8259 §6), whole. */
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;
const EXACT_NUMBERS = Symbol('exactNumbers');
const MAX_DEPTH = 256;

type WithExactNumbers = Request & { [EXACT_NUMBERS]?: Map<string, string> };

const isNumberChar = (code: number) => (code >= 48 && code <= 57) || code === 45 || code === 43 || code === 46 || code === 69 || code === 101;

const invalidJson = () => new HttpError(400, 'INVALID_JSON', 'the request body is not valid JSON');

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
  const parts: string[] = [];
  let copiedUpTo = 0;
  let at = 0;
  while (at < text.length) {
    const code = text.charCodeAt(at);
    if (code === 34) {
      // A string: skipped whole, escapes included.
      at += 1;
      while (at < text.length) {
        const inner = text.charCodeAt(at);
        if (inner === 92) at += 2;
        else {
          at += 1;
          if (inner === 34) break;
        }
      }
      continue;
    }
    if (code === 45 || (code >= 48 && code <= 57)) {
      let end = at + 1;
      while (end < text.length && isNumberChar(text.charCodeAt(end))) end += 1;
      const token = text.slice(at, end);
      // Not a JSON number: left as it is, for JSON.parse to refuse.
      if (JSON_NUMBER.test(token)) {
        parts.push(text.slice(copiedUpTo, at), `"\\u0000${tokens.length}"`);
        tokens.push(token);
        copiedUpTo = end;
      }
      at = end;
      continue;
    }
    at += 1;
  }
  parts.push(text.slice(copiedUpTo));
  let parsed: unknown;
  try {
    parsed = JSON.parse(parts.join(''));
  } catch {
    throw invalidJson();
  }
  const numbers = new Map<string, string>();
  const restore = (value: unknown, path: Array<string | number>): unknown => {
    // Past any body the API reads (the route's parsing refuses more than 64 levels anyway), and before recursion could exhaust the stack.
    if (path.length > MAX_DEPTH) throw new HttpError(400, 'VALIDATION_FAILED', `the body nests more than ${MAX_DEPTH} levels of objects and arrays`);
    if (typeof value === 'string') {
      if (value.charCodeAt(0) !== 0) return value;
      const token = tokens[Number(value.slice(1))]!;
      numbers.set(JSON.stringify(path), token);
      return Number(token);
    }
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index += 1) value[index] = restore(value[index], [...path, index]);
    } else if (value !== null && typeof value === 'object') {
      for (const key of Object.keys(value)) {
        // defineProperty: a "__proto__" key stays an own property, as JSON.parse made it.
        Object.defineProperty(value, key, { value: restore((value as Record<string, unknown>)[key], [...path, key]), writable: true, enumerable: true, configurable: true });
      }
    }
    return value;
  };
  return { value: restore(parsed, []), numbers };
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
