import { z } from 'zod';
import { HttpError } from '../../http/errors';

/**
 * The window of time a query reads (the payouts queries' `from_date`/`to_date`, `from`/`to`): each bound
 * a UTC day (YYYY-MM-DD), which covers the whole day (a `to` day is inclusive), or an ISO-8601 instant
 * with its offset, taken as written (a `to` instant is inclusive too). The window reaches services as
 * [from, to): `to` is the instant after the last one read.
 */
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;
const DAY_MS = 86_400_000;

interface Bound {
  /** The first instant of the bound's day, or the instant. */
  start: Date;
  /** The instant after the bound: the next day's start, or the instant plus 1 ms. */
  after: Date;
}

function readBound(value: string): Bound | undefined {
  const day = DAY.exec(value);
  if (day) {
    const start = new Date(Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3])));
    // 2026-02-30 rolls over into March: no such day.
    if (Number.isNaN(start.getTime()) || start.toISOString().slice(0, 10) !== value) return undefined;
    return { start, after: new Date(start.getTime() + DAY_MS) };
  }
  if (!INSTANT.test(value)) return undefined;
  const start = new Date(value);
  return Number.isNaN(start.getTime()) ? undefined : { start, after: new Date(start.getTime() + 1) };
}

/** One bound of a window in a query string. */
export const windowBound = z
  .string()
  .max(40)
  .refine((value) => readBound(value) !== undefined, 'must be a UTC day (YYYY-MM-DD) or an ISO-8601 instant with its offset');

interface NamedBound {
  field: string;
  value: string | undefined;
}

/**
 * The window [from, to) the two bounds name (either may be left out: unbounded on that side); a
 * `to` before `from` is a 400 naming `to`. With `together`, one bound without the other is a 400 too.
 */
export function timeWindow(from: NamedBound, to: NamedBound, together = false): { from: Date | undefined; to: Date | undefined } {
  if (together && (from.value === undefined) !== (to.value === undefined)) {
    const missing = from.value === undefined ? from.field : to.field;
    const other = from.value === undefined ? to.field : from.field;
    throw new HttpError(400, 'VALIDATION_FAILED', `${missing}: is required with ${other}`, [{ field: missing, reason: `is required with ${other}` }]);
  }
  const start = from.value === undefined ? undefined : readBound(from.value)?.start;
  const end = to.value === undefined ? undefined : readBound(to.value)?.after;
  if (start !== undefined && end !== undefined && end.getTime() <= start.getTime()) {
    throw new HttpError(400, 'VALIDATION_FAILED', `${to.field}: is before ${from.field}`, [{ field: to.field, reason: `is before ${from.field}` }]);
  }
  return { from: start, to: end };
}
