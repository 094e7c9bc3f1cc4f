import { sql } from 'kysely';
import type { Database } from '../../services/platform/db/database';
import { openMaintenanceDatabase } from '../helpers/maintenance-database';

/** What every repository reads, as services/platform/db/type-parsers.ts registers it on each pool. */
describe('database type parsers', () => {
  let database: Database<unknown>;
  beforeAll(() => {
    database = openMaintenanceDatabase('test-type-parsers');
  });
  afterAll(() => database.close());

  const one = async <T>(expression: string) => (await sql<{ v: T }>`SELECT ${sql.raw(expression)} AS v`.execute(database.db)).rows[0]!.v;

  it('reads int8 and count(*) as bigint, exactly beyond 2^53', async () => {
    expect(await one('9007199254740993::int8')).toBe(9_007_199_254_740_993n);
    expect(await one('(SELECT count(*) FROM generate_series(1, 3))')).toBe(3n);
    expect(await one("'{1,NULL,-9223372036854775808}'::int8[]")).toEqual([1n, null, -9_223_372_036_854_775_808n]);
  });

  it('reads NUMERIC(78,0) money as bigint, and refuses to read a fractional numeric as one', async () => {
    expect(await one('115792089237316195423570985008687907853269984665640564039457584007913129639935::numeric(78,0)')).toBe(2n ** 256n - 1n);
    expect(await one("'{5,-7}'::numeric[]")).toEqual([5n, -7n]);
    await expect(one('1.5::numeric')).rejects.toThrow(/no whole number/);
    expect(await one('1.5::numeric::text')).toBe('1.5');
  });

  it('reads a date as its YYYY-MM-DD text, whatever the time zones', async () => {
    await sql`SET TIME ZONE 'Pacific/Kiritimati'`.execute(database.db);
    expect(await one("'2026-02-28'::date")).toBe('2026-02-28');
    expect(await one("'{2026-02-28,NULL}'::date[]")).toEqual(['2026-02-28', null]);
  });

  it('reads timestamps as instants; one without a time zone as UTC', async () => {
    expect(await one("'2026-11-21T12:00:00Z'::timestamptz")).toEqual(new Date('2026-11-21T12:00:00.000Z'));
    expect(await one("'2026-11-21 12:00:00.123'::timestamp")).toEqual(new Date('2026-11-21T12:00:00.123Z'));
  });
});
