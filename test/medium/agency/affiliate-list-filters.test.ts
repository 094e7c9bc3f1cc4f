import { randomUUID } from 'node:crypto';
import type { AgencyDatabase } from '../../../services/agency/database';
import { audienceMemberships } from '../../../services/agency/jobs/audience-memberships.consumer';
import type { AffiliateFilters, AffiliateSortKey } from '../../../services/agency/repositories/affiliate-list';
import type { EventType } from '../../../services/platform/events/contracts';
import { deliverEvent, type EventConsumer } from '../../../services/platform/outbox/consumer';
import { type AgencyHarness, startAgencyDomain } from '../../helpers/agency-domain';
import { everyAffiliatePage } from './fixtures';
import { newProject, newUser } from './program-fixtures';

const T0 = Date.parse('2026-11-21T12:00:00.000Z');
const SORTS: AffiliateSortKey[] = ['joined_at', 'volume_usd', 'revenue_usd', 'conversions', 'end_users', 'referred_volume_usd', 'clicks'];
const REGIONS = ['DE', 'US', 'BR', null];
const NAMES = ['trade', 'swap', 'signup'];

/** A seeded generator (mulberry32): the same random data on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The affiliate list's segment and conversion-name filters read affiliate_filter_entries (migration
 * 0008, kept by triggers) and their kept counts; region and status filters indexes and counts of their
 * own (0009). Over random data written the ways the projection is written (memberships through the
 * consumer, some before their user becomes an affiliate, and changed after; per-name counts and
 * figures into the projection's tables, changed after; statuses and regions through the domain),
 * every page of every filter, sort and order, laid end to end, must be exactly what a naive query over
 * the source tables gives, with its total.
 */
describe('affiliate list filters against a naive query (domain, random data)', () => {
  let harness: AgencyHarness;
  const projectId = newProject();
  const [gold, silver, bronze, empty] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const draw = seeded(10);
  const pick = <T>(values: readonly T[]) => values[Math.floor(draw() * values.length)]!;
  const consumer = audienceMemberships as unknown as EventConsumer<AgencyDatabase, EventType>;
  let seconds = 0;
  const members = (segmentId: string, users: Array<{ identifier: string }>, kind: 'static' | 'dynamic', present: boolean) =>
    deliverEvent(
      harness.db,
      consumer,
      {
        id: randomUUID(),
        type: present ? 'audience.entry_added' : 'audience.entry_removed',
        projectId,
        payload: { segment_id: segmentId, kind, users: users.map((user) => ({ identifier: user.identifier, identifier_type: 'evm_address' })) },
        createdAt: new Date(T0 + ++seconds * 1_000).toISOString(),
      },
      harness.clock,
      harness.logs.logger('consumer'),
    );
  const someOf = <T>(values: readonly T[], share: number) => values.filter(() => draw() < share);
  const randomFigures = () =>
    harness.sql.query(
      `UPDATE agency.affiliate_metrics SET volume_usd = floor(random() * 8)::numeric / 4, revenue_usd = floor(random() * 5), conversions = floor(random() * 9),
         end_users = floor(random() * 3), referred_volume_usd = floor(random() * 2), clicks = floor(random() * 4) WHERE project_id = $1`,
      [projectId],
    );

  beforeAll(async () => {
    harness = await startAgencyDomain();
    await harness.sql.query('SELECT setseed(0.1)');
    const users = Array.from({ length: 240 }, () => newUser());
    // Members before they are affiliates (the new affiliate's entries come from its memberships).
    await members(gold, someOf(users, 0.5), 'static', true);
    await members(bronze, someOf(users, 0.2), 'dynamic', true);
    for (const [index, user] of users.entries()) {
      harness.clock.set(new Date(T0 + Math.floor(index / 3) * 60_000));
      await harness.domain.affiliates.create(projectId, user, { name: `Affiliate ${index}`, region: pick(REGIONS) ?? undefined });
    }
    // Members after, of both kinds; some leave (a user stays while one kind of entry is there).
    await members(silver, someOf(users, 0.4), 'static', true);
    await members(silver, someOf(users, 0.3), 'dynamic', true);
    await members(gold, someOf(users, 0.3), 'dynamic', true);
    await members(gold, someOf(users, 0.3), 'static', false);
    await members(silver, someOf(users, 0.2), 'static', false);
    await members(empty, someOf(users, 0.1), 'static', true);
    await members(empty, users, 'static', false);
    await randomFigures();
    const { rows } = await harness.sql.query<{ id: string }>('SELECT id FROM agency.affiliates WHERE project_id = $1 ORDER BY id', [projectId]);
    for (const name of NAMES) {
      const ids = someOf(
        rows.map((row) => row.id),
        name === 'trade' ? 0.9 : 0.3,
      );
      await harness.sql.query(
        `INSERT INTO agency.affiliate_conversion_counts (affiliate_id, name, project_id, conversions) SELECT id, $2, $3, 1 FROM unnest($1::uuid[]) AS id`,
        [ids, name, projectId],
      );
    }
    // Then everything moves: figures, statuses and regions (their copies follow).
    await randomFigures();
    const suspended = someOf(users, 0.25);
    for (const user of suspended) await harness.domain.affiliates.suspend(projectId, user, 'test', null);
    for (const user of someOf(users, 0.15)) await harness.domain.affiliates.update(projectId, user, { mask: ['region'], region: pick(REGIONS) });
    for (const user of someOf(suspended, 0.2)) await harness.domain.affiliates.reactivate(projectId, user, null);
  });
  afterAll(() => harness.stop());

  /** The filters' affiliates in the sort's order, from the source tables (memberships, per-name counts). */
  const naive = async (filters: AffiliateFilters, by: AffiliateSortKey, order: 'asc' | 'desc'): Promise<string[]> => {
    const where = ['a.project_id = $1'];
    const values: unknown[] = [projectId];
    const param = (value: unknown) => `$${values.push(value)}`;
    if (filters.status) where.push(`a.status = ${param(filters.status)}`);
    if (filters.region) where.push(`a.region = ${param(filters.region)}`);
    if (filters.q) where.push(`a.identifier LIKE ${param(`${filters.q}%`)}`);
    for (const segments of [filters.audienceId ? [filters.audienceId] : undefined, filters.anyAudienceIds]) {
      if (segments) {
        where.push(
          `EXISTS (SELECT 1 FROM agency.audience_memberships am WHERE am.project_id = a.project_id AND am.segment_id = ANY(${param(segments)}::uuid[]) ` +
            'AND am.identifier_type = a.identifier_type AND am.identifier = a.identifier AND am.present)',
        );
      }
    }
    if (filters.conversionNames)
      where.push(
        `EXISTS (SELECT 1 FROM agency.affiliate_conversion_counts cc WHERE cc.affiliate_id = a.id AND cc.name = ANY(${param(filters.conversionNames)}))`,
      );
    const key = by === 'joined_at' ? 'a.joined_at' : `m.${by}`;
    const { rows } = await harness.sql.query<{ id: string }>(
      `SELECT a.id FROM agency.affiliates a JOIN agency.affiliate_metrics m ON m.affiliate_id = a.id WHERE ${where.join(' AND ')} ORDER BY ${key} ${order}, a.id ${order}`,
      values,
    );
    return rows.map((row) => row.id);
  };

  const allPages = (filters: AffiliateFilters, by: AffiliateSortKey, order: 'asc' | 'desc', pageSize: number) =>
    everyAffiliatePage(harness, projectId, filters, { by, order }, pageSize);

  const cases: Array<[string, AffiliateFilters]> = [
    ['a segment', { audienceId: gold }],
    ['a segment, suspended', { audienceId: gold, status: 'suspended' }],
    ['a segment, a region', { audienceId: silver, region: 'DE' }],
    ['any of two segments', { anyAudienceIds: [gold, silver] }],
    ['any of two segments, active, a region', { anyAudienceIds: [gold, bronze], status: 'active', region: 'US' }],
    ['an emptied segment', { audienceId: empty }],
    ['a conversion name', { conversionNames: ['trade'] }],
    ['any of two names, active', { conversionNames: ['swap', 'signup'], status: 'active' }],
    ['a segment and a name', { audienceId: gold, conversionNames: ['signup'] }],
    ['a segment, any of two segments, any of two names', { audienceId: bronze, anyAudienceIds: [gold, silver], conversionNames: ['trade', 'swap'] }],
    ['a region', { region: 'DE' }],
    ['suspended', { status: 'suspended' }],
    ['suspended in a region', { status: 'suspended', region: 'BR' }],
    ['a search and a segment', { q: '0x', audienceId: gold }],
    ['a search', { q: '0x1' }],
    ['none', {}],
  ];

  it.each(cases)('%s: every page of every sort and order is the naive query’s order, with its total', async (_label, filters) => {
    for (const by of SORTS) {
      for (const order of ['asc', 'desc'] as const) {
        const expected = await naive(filters, by, order);
        // 45 a page: from the 200th row on, the far half is read from the end.
        expect(await allPages(filters, by, order, 45)).toEqual({ ids: expected, totals: [expected.length] });
      }
    }
  });

  it('has data that makes the comparison mean something (matches, non-matches, the far half read from the end)', async () => {
    expect((await naive({ conversionNames: ['trade'] }, 'joined_at', 'asc')).length).toBeGreaterThan(200);
    for (const [, filters] of cases.slice(0, 5)) {
      const matches = (await naive(filters, 'joined_at', 'asc')).length;
      expect(matches).toBeGreaterThan(0);
      expect(matches).toBeLessThan(240);
    }
  });

  it('keeps the entries and their counts equal to what the source tables say', async () => {
    const { rows: stale } = await harness.sql.query(
      `SELECT e.* FROM agency.affiliate_filter_entries e JOIN agency.affiliates a ON a.id = e.affiliate_id JOIN agency.affiliate_metrics m ON m.affiliate_id = a.id
       WHERE e.project_id = $1 AND (e.status, e.region, e.joined_at, e.volume_usd, e.revenue_usd, e.conversions, e.end_users, e.referred_volume_usd, e.clicks)
         IS DISTINCT FROM (a.status, a.region, a.joined_at, m.volume_usd, m.revenue_usd, m.conversions, m.end_users, m.referred_volume_usd, m.clicks)`,
      [projectId],
    );
    expect(stale).toEqual([]);
    const differences = async (kept: string, counted: string) => {
      const { rows } = await harness.sql.query(`((${kept}) EXCEPT (${counted})) UNION ALL ((${counted}) EXCEPT (${kept}))`, [projectId]);
      return rows;
    };
    expect(
      await differences(
        'SELECT kind, value, status, region, affiliates::int FROM agency.affiliate_filter_counts WHERE project_id = $1 AND affiliates > 0',
        'SELECT kind, value, status, region, count(*)::int FROM agency.affiliate_filter_entries WHERE project_id = $1 GROUP BY 1, 2, 3, 4',
      ),
    ).toEqual([]);
    expect(
      await differences(
        'SELECT status, region, affiliates::int FROM agency.affiliate_region_counts WHERE project_id = $1 AND affiliates > 0',
        'SELECT status, region, count(*)::int FROM agency.affiliates WHERE project_id = $1 GROUP BY 1, 2',
      ),
    ).toEqual([]);
    // Every entry is one the source tables call for, and every one they call for is there.
    expect(
      await differences(
        'SELECT affiliate_id, kind, value FROM agency.affiliate_filter_entries WHERE project_id = $1',
        `SELECT cc.affiliate_id, 'conversion', cc.name FROM agency.affiliate_conversion_counts cc WHERE cc.project_id = $1
         UNION SELECT a.id, 'audience', am.segment_id::text FROM agency.audience_memberships am
           JOIN agency.affiliates a ON a.project_id = am.project_id AND a.identifier_type = am.identifier_type AND a.identifier = am.identifier
           WHERE am.project_id = $1 AND am.present`,
      ),
    ).toEqual([]);
  });
});
