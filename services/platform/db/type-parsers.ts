import pg from 'pg';

/**
 * How PostgreSQL values become JavaScript values, registered once for every pool that
 * openDatabase opens (never through pg's global registry, so no other client is affected), so that
 * repositories read columns as their table types say and cast nothing per query:
 *
 * - int8 (bigint, count(*)) -> bigint: exact beyond 2^53.
 * - numeric -> bigint. NUMERIC is money in this system: integer base units in NUMERIC(78,0)
 *   (services/rules/money.ts). A fractional numeric (a USD figure) has no bigint: reading one
 *   throws, naming the value; select such a column as text (`eb.cast(column, 'text')`), which
 *   keeps it an exact decimal string.
 * - date -> the 'YYYY-MM-DD' text itself: a calendar date is no instant, and pg's default would
 *   make it local midnight of the server's time zone.
 * - timestamptz -> Date (pg's parser); timestamp without time zone -> Date read as UTC (pg's
 *   default would read it in the server's local time zone).
 *
 * Arrays of each follow the same rule.
 */
const { builtins } = pg.types;
/** pg's own parsers, by any oid (its types list no array oids). */
const defaultParser = pg.types.getTypeParser as (oid: number, format?: 'text' | 'binary') => (value: string) => unknown;

const ARRAY_OF = { text: 1009, int8: 1016, numeric: 1231, date: 1182, timestamp: 1115 } as const;

/** A one-dimensional array, each element read by `parse` (NULL elements stay null). */
const parseTextArray = defaultParser(ARRAY_OF.text) as (value: string) => Array<string | null>;
const arrayOf =
  <T>(parse: (value: string) => T) =>
  (value: string): Array<T | null> =>
    parseTextArray(value).map((item) => (item === null ? null : parse(item)));

function parseInteger(value: string): bigint {
  return BigInt(value);
}

function parseNumeric(value: string): bigint {
  if (!/^-?\d+$/.test(value)) {
    throw new Error(`numeric value ${value} is no whole number of base units; select a fractional NUMERIC column as text`);
  }
  return BigInt(value);
}

const parseTimestamptz = defaultParser(builtins.TIMESTAMPTZ) as (value: string) => Date;
const parseUtcTimestamp = (value: string): Date => parseTimestamptz(`${value}+00`);
const parseDate = (value: string): string => value;

const TEXT_PARSERS = new Map<number, (value: string) => unknown>([
  [builtins.INT8, parseInteger],
  [builtins.NUMERIC, parseNumeric],
  [builtins.DATE, parseDate],
  [builtins.TIMESTAMP, parseUtcTimestamp],
  [ARRAY_OF.int8, arrayOf(parseInteger)],
  [ARRAY_OF.numeric, arrayOf(parseNumeric)],
  [ARRAY_OF.date, arrayOf(parseDate)],
  [ARRAY_OF.timestamp, arrayOf(parseUtcTimestamp)],
]);

function getTypeParser(oid: number, format: 'text' | 'binary' = 'text'): (value: string) => unknown {
  return (format === 'text' ? TEXT_PARSERS.get(oid) : undefined) ?? defaultParser(oid, format);
}

export const typeParsers: pg.CustomTypesConfig = { getTypeParser: getTypeParser as pg.CustomTypesConfig['getTypeParser'] };
