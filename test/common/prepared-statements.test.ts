import { CompiledQuery, sql } from 'kysely';
import type { Database } from '../../services/platform/db/database';
import { MAX_SHAPES, preparedShape, preparedStatement } from '../../services/platform/db/prepared-statements';
import { openMaintenanceDatabase } from '../helpers/maintenance-database';

const SQUARES = preparedStatement('test_prepared_squares', 'SELECT g, g * $1::int AS product FROM generate_series(1, $2::int) g ORDER BY g');

/** services/platform/db/prepared-statements.ts: registered texts go by name, once per connection; nothing else changes. */
describe('prepared statements', () => {
  let database: Database<unknown>;
  beforeAll(() => {
    database = openMaintenanceDatabase('test-prepared-statements');
  });
  afterAll(() => database.close());

  const prepared = async () =>
    (
      await sql<{
        name: string;
        calls: bigint;
      }>`SELECT name, generic_plans + custom_plans AS calls FROM pg_prepared_statements ORDER BY name`.execute(database.db)
    ).rows;

  it('sends a registered text as a named statement, prepared once and run with each call’s parameters', async () => {
    const run = async (factor: number, count: number) =>
      (await database.db.executeQuery<{ g: number; product: number }>(CompiledQuery.raw(SQUARES, [factor, count]))).rows;
    expect(await run(3, 2)).toEqual([
      { g: 1, product: 3 },
      { g: 2, product: 6 },
    ]);
    expect(await run(5, 3)).toEqual([
      { g: 1, product: 5 },
      { g: 2, product: 10 },
      { g: 3, product: 15 },
    ]);
    // One statement, planned for both calls; the statement above (not registered) left none.
    expect(await prepared()).toEqual([{ name: 'test_prepared_squares', calls: 2n }]);
  });

  it('leaves unregistered texts unnamed, and refuses a second text under a taken name', async () => {
    await sql`SELECT ${1}::int AS one`.execute(database.db);
    expect((await prepared()).map((row) => row.name)).toEqual(['test_prepared_squares']);
    expect(preparedStatement('test_prepared_squares', SQUARES)).toBe(SQUARES);
    expect(() => preparedStatement('test_prepared_squares', 'SELECT 1')).toThrow(/already registered with another text/);
  });

  it('names a statement built per call by its shape, the same text under one name, and stops naming past MAX_SHAPES texts', async () => {
    const shape = (column: string) => preparedShape('test_shape', `SELECT g AS ${column} FROM generate_series(1, $1::int) g`);
    for (const count of [1, 2]) expect((await database.db.executeQuery(CompiledQuery.raw(shape('first'), [count]))).rows).toHaveLength(count);
    expect((await prepared()).filter((row) => row.name.startsWith('test_shape_'))).toEqual([
      { name: expect.stringMatching(/^test_shape_[0-9a-f]{20}$/), calls: 2n },
    ]);
    for (let n = 1; n < MAX_SHAPES; n++) shape(`c${n}`);
    await database.db.executeQuery(CompiledQuery.raw(shape('past_the_bound'), [1]));
    expect((await prepared()).filter((row) => row.name.startsWith('test_shape_'))).toHaveLength(1);
  });
});
