import { sql } from 'kysely';
import { listAffiliates } from '../../../services/agency/repositories/affiliate-list';
import { startAgencyDomain } from '../../helpers/agency-domain';
import { type AgencyHarness, everyAffiliatePage, newProject, newUser } from './fixtures';

const START = Date.parse('2026-11-21T12:00:00.000Z');
const SORTS = ['joined_at', 'volume_usd', 'revenue_usd', 'conversions', 'end_users', 'referred_volume_usd', 'clicks'] as const;

/**
 * The list's pages past the middle are read from the far end in the opposite order (any page at 100,000 affiliates): every page of every sort and order, laid end to end, must be
 * exactly the order the sort defines (ties by id), with no affiliate missing or twice.
 */
describe('affiliate list pages (domain)', () => {
  let harness: AgencyHarness;
  let projectId: string;
  const size = 260;
  beforeAll(async () => {
    harness = await startAgencyDomain({});
    projectId = newProject();
    for (let index = 0; index < size; index++) {
      // Two affiliates share each joined_at: ties are broken by id.
      harness.clock.set(new Date(START + Math.floor(index / 2) * 60_000));
      const user = newUser();
      await harness.domain.affiliates.create(projectId, user, { name: `Affiliate ${index}`, region: index % 3 === 0 ? 'DE' : 'US' });
      if (index % 5 === 0) await harness.domain.affiliates.suspend(projectId, user, 'test', null);
    }
    // Figures with many ties (the projection's own path is tested in affiliate-metrics.test.ts).
    await harness.sql.query(
      `UPDATE agency.affiliate_metrics SET volume_usd = (abs(hashtext(affiliate_id::text)) % 7)::numeric / 4, revenue_usd = abs(hashtext(affiliate_id::text || 'r')) % 5,
         conversions = abs(hashtext(affiliate_id::text || 'c')) % 11, end_users = abs(hashtext(affiliate_id::text || 'e')) % 3, referred_volume_usd = abs(hashtext(affiliate_id::text || 'v')) % 2
       WHERE project_id = $1`,
      [projectId],
    );
  });
  afterAll(() => harness.stop());

  /** The order the sort defines, straight from the tables. */
  const expected = async (by: (typeof SORTS)[number], order: 'asc' | 'desc', where = 'true'): Promise<string[]> => {
    const key = by === 'joined_at' ? 'a.joined_at' : `m.${by}`;
    const { rows } = await harness.sql.query<{ id: string }>(
      `SELECT a.id FROM agency.affiliates a JOIN agency.affiliate_metrics m ON m.affiliate_id = a.id WHERE a.project_id = $1 AND ${where} ORDER BY ${key} ${order}, a.id ${order}`,
      [projectId],
    );
    return rows.map((row) => row.id);
  };

  const allPages = async (
    by: (typeof SORTS)[number],
    order: 'asc' | 'desc',
    pageSize: number,
    filters: { status?: 'active' | 'suspended'; region?: string } = {},
  ) => everyAffiliatePage(harness, projectId, filters, { by, order }, pageSize);

  it('lays every page of every sort and order end to end in exactly the sort’s order, the far half read from the end', async () => {
    for (const by of SORTS) {
      for (const order of ['asc', 'desc'] as const) {
        // 40 a page: pages 6 and 7 start past the 200th row (read from the end), page 7 is a partial one.
        expect(await allPages(by, order, 40)).toEqual({ ids: await expected(by, order), totals: [size] });
      }
    }
  });

  it('does the same under filters, whose totals are counted', async () => {
    for (const by of ['joined_at', 'volume_usd'] as const) {
      const active = await allPages(by, 'desc', 30, { status: 'active' });
      expect(active).toEqual({ ids: await expected(by, 'desc', "a.status = 'active'"), totals: [208] });
      const inDe = await allPages(by, 'asc', 7, { region: 'DE' });
      expect(inDe).toEqual({ ids: await expected(by, 'asc', "a.region = 'DE'"), totals: [87] });
    }
  });

  it('follows an affiliate’s new region and status in the metric sorts’ filters (their copies on the metrics row)', async () => {
    const { rows } = await harness.sql.query<{ identifier: string; status: string }>(
      "SELECT identifier, status FROM agency.affiliates WHERE project_id = $1 AND region = 'DE' ORDER BY id LIMIT 6",
      [projectId],
    );
    for (const row of rows) {
      const user = { identifier: row.identifier, identifierType: 'evm_address' as const };
      await harness.domain.affiliates.update(projectId, user, { mask: ['region'], region: 'BR' });
      if (row.status === 'suspended') await harness.domain.affiliates.reactivate(projectId, user, null);
      else await harness.domain.affiliates.suspend(projectId, user, 'moved', null);
    }
    for (const by of ['conversions', 'end_users'] as const) {
      expect(await allPages(by, 'desc', 4, { region: 'BR' })).toEqual({ ids: await expected(by, 'desc', "a.region = 'BR'"), totals: [6] });
      expect(await allPages(by, 'asc', 9, { region: 'DE', status: 'suspended' })).toEqual({
        ids: await expected(by, 'asc', "a.region = 'DE' AND a.status = 'suspended'"),
        totals: [(await expected(by, 'asc', "a.region = 'DE' AND a.status = 'suspended'")).length],
      });
      const copies = await harness.sql.query(
        'SELECT count(*)::int AS n FROM agency.affiliate_metrics m JOIN agency.affiliates a ON a.id = m.affiliate_id WHERE a.project_id = $1 AND (m.status <> a.status OR m.region IS DISTINCT FROM a.region)',
        [projectId],
      );
      expect(copies.rows).toEqual([{ n: 0 }]);
    }
  });

  it('plans a shape’s page statement at most five times per connection, then keeps its generic plan whatever the page', async () => {
    // One connection, as a statement's plans are its session's: eight pages of one shape (each offset a value, not text).
    const [plans, pages] = await harness.db.connection().execute(async (db) => {
      const read: string[][] = [];
      for (let page = 1; page <= 8; page++) {
        const { records } = await listAffiliates(db, projectId, {}, { page, pageSize: 20, offset: (page - 1) * 20 }, { by: 'clicks', order: 'asc' });
        read.push(records.map((record) => record.id));
      }
      const { rows } = await sql<{ statement: string; generic_plans: bigint; custom_plans: bigint }>`
        SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'agency_affiliate_list_%' AND statement LIKE '%ELSE ARRAY(SELECT m.affiliate_id AS id FROM affiliate_metrics m WHERE m.project_id = $1 ORDER BY m.clicks ASC%'`.execute(
        db,
      );
      return [rows, read] as const;
    });
    expect(pages.flat()).toEqual((await expected('clicks', 'asc')).slice(0, 160));
    // The shape's one statement (offsets are values, not text), planned for its values at most five times
    // (PostgreSQL's custom plans), then kept generic. At 100,000 affiliates the range written as parameters of
    // the LIMITs was planned for every page (bench/README.md, tenth session); at this size both texts plan alike,
    // so this holds the statement to one text and its kept plan, not to the cost comparison itself.
    expect(plans).toHaveLength(1);
    expect(Number(plans[0]!.custom_plans)).toBeLessThanOrEqual(5);
    expect(Number(plans[0]!.generic_plans)).toBeGreaterThanOrEqual(3);
  });

  it('answers a page past the end with no rows and the right total', async () => {
    const { records, total } = await harness.domain.affiliates.list(
      projectId,
      {},
      { page: 30, pageSize: 10, offset: 290 },
      { by: 'volume_usd', order: 'desc' },
    );
    expect({ records, total }).toEqual({ records: [], total: size });
  });

  it('counts affiliates with any of several conversion names once each, also with a status', async () => {
    const { rows } = await harness.sql.query<{ id: string; status: string }>(
      'SELECT id, status FROM agency.affiliates WHERE project_id = $1 ORDER BY id LIMIT 12',
      [projectId],
    );
    // The first six did a trade, the last eight (four of them traders too) a signup.
    await harness.sql.query(
      `INSERT INTO agency.affiliate_conversion_counts (affiliate_id, name, project_id, conversions)
       SELECT id, name, $2, 1 FROM unnest($1::uuid[]) WITH ORDINALITY AS t(id, n), unnest(ARRAY['trade', 'signup']) AS name
       WHERE (name = 'trade' AND n <= 6) OR (name = 'signup' AND n > 4)`,
      [rows.map((row) => row.id), projectId],
    );
    const total = async (conversionNames: string[], status?: 'active' | 'suspended') =>
      (
        await harness.domain.affiliates.list(
          projectId,
          { conversionNames, status },
          { page: 1, pageSize: 5, offset: 0 },
          { by: 'volume_usd', order: 'desc' },
        )
      ).total;
    const activeOf = (slice: typeof rows) => slice.filter((row) => row.status === 'active').length;
    expect(await total(['trade'])).toBe(6);
    expect(await total(['trade', 'signup'])).toBe(12);
    expect(await total(['trade', 'signup'], 'active')).toBe(activeOf(rows));
    expect(await total(['signup'], 'suspended')).toBe(8 - activeOf(rows.slice(4)));
    // The page agrees with its total: the named affiliates, in the sort's order.
    const named = await harness.domain.affiliates.list(
      projectId,
      { conversionNames: ['trade', 'signup'] },
      { page: 1, pageSize: 100, offset: 0 },
      { by: 'joined_at', order: 'asc' },
    );
    expect(named.records.map((record) => record.id).sort()).toEqual(rows.map((row) => row.id).sort());
  });
});
