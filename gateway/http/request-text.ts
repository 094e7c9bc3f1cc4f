import type { Request, RequestHandler } from 'express';
import type { FieldViolation } from '../../services/rules/errors';
import { findUnsafeJson, JSON_SAFETY_REASONS } from '../../services/platform/json-safety';
import { HttpError } from './errors';

/** A name as it is quoted back in an error (a query string may be 16 KB long). */
const QUOTED_NAME_LENGTH = 100;

/** One component of a query string, decoded as the query parser decodes it; undefined when it is not valid percent-encoded UTF-8. */
function decodeComponent(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw.includes('+') ? raw.replace(/\+/g, ' ') : raw);
  } catch {
    return undefined;
  }
}

function quoted(rawName: string): string {
  return rawName.length > QUOTED_NAME_LENGTH ? `${rawName.slice(0, QUOTED_NAME_LENGTH)}…` : rawName;
}

function invalidQueryEncoding(violation: FieldViolation): HttpError {
  return new HttpError(
    400,
    'INVALID_QUERY_ENCODING',
    `${violation.field}: the query string holds a malformed percent-encoding (each %XX must encode a byte of valid UTF-8)`,
    [violation],
  );
}

/**
 * Every parameter of a query string, known to the route or not: its name and value must be valid
 * percent-encoded UTF-8 (the query parser would otherwise turn %ff into U+FFFD, silently) and may not
 * hold the NUL character. Without a `%` there is nothing to decode wrongly and no NUL (the HTTP parser
 * refuses raw control characters), so the common query costs one scan.
 */
function checkQuery(req: Request): void {
  const url = req.originalUrl;
  const start = url.indexOf('?');
  if (start < 0 || !url.includes('%', start)) return;
  for (const part of url.slice(start + 1).split('&')) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    const rawName = equals < 0 ? part : part.slice(0, equals);
    const name = decodeComponent(rawName);
    if (name === undefined) throw invalidQueryEncoding({ field: quoted(rawName), reason: 'the name is not valid percent-encoded UTF-8' });
    if (name.includes('\u0000')) throw nulInQuery({ field: quoted(rawName), reason: 'the name must not contain the NUL character' });
    if (equals < 0) continue;
    const value = decodeComponent(part.slice(equals + 1));
    if (value === undefined) throw invalidQueryEncoding({ field: quoted(name), reason: 'the value is not valid percent-encoded UTF-8' });
    if (value.includes('\u0000')) throw nulInQuery({ field: quoted(name), reason: JSON_SAFETY_REASONS.nul });
  }
}

function nulInQuery(violation: FieldViolation): HttpError {
  return new HttpError(400, 'VALIDATION_FAILED', `${violation.field}: ${violation.reason}`, [violation]);
}

/** The path's parameters, as the router decoded them (a malformed encoding is already INVALID_PATH_ENCODING). */
function checkPathParams(req: Request): void {
  const unsafe = findUnsafeJson(req.params, { maxDepth: 2 });
  if (unsafe) throw new HttpError(400, 'VALIDATION_FAILED', `${unsafe.field}: ${unsafe.reason}`, [unsafe]);
}

/**
 * The text of a request's path and query, checked for every route before anything reads it, the
 * authenticator included: like a malformed percent-encoding in the path, a NUL in a path id or a
 * malformed (or NUL-holding) query parameter, known to the route or not, is 400 to anyone. What the
 * values mean is checked after authentication, by each route's schemas.
 */
export function checkRequestText(req: Request): void {
  checkPathParams(req);
  checkQuery(req);
}

/** Whether the headers alone say the request has no body (no chunked body, no Content-Length above 0): refuseBody lets it through at once. */
export function carriesNoBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return false;
  const length = req.headers['content-length'];
  return length === undefined || Number(length) === 0;
}

/**
 * For a route that declares no body: a request that carries one (any, `{}` and malformed JSON
 * alike) is refused, so nothing runs on input the route never reads. A body is carried when
 * Content-Length is above 0, or when a chunked body holds a byte.
 */
export function refuseBody(method: string, path: string): RequestHandler {
  const refusal = () => new HttpError(400, 'BODY_NOT_ALLOWED', `${method.toUpperCase()} ${path} takes no request body; send the request without one`);
  return (req, _res, next) => {
    if (req.headers['transfer-encoding'] === undefined) {
      next(carriesNoBody(req) ? undefined : refusal());
      return;
    }
    const settle = (error?: HttpError) => {
      req.off('data', onData).off('end', onEnd).off('error', onError);
      req.pause();
      next(error);
    };
    const onData = () => settle(refusal());
    const onEnd = () => settle();
    // The client went away while sending: nobody reads the answer, which must still not be a 500.
    const onError = () => settle(new HttpError(400, 'BAD_REQUEST', 'the request body could not be read'));
    req.on('data', onData).on('end', onEnd).on('error', onError);
  };
}
