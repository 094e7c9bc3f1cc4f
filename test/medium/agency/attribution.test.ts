import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { AgencyDatabase } from '../../../services/agency/database';
import { typeParsers } from '../../../services/platform/db/type-parsers';
import { SERVICE_CATALOG } from '../../../services/platform/service-catalog';
import { AttributionService } from '../../../services/agency/domain/attribution.service';
import {
  AttributionRepository,
  RESOLVE_ATTRIBUTION_SQL,
  resolveAttributionParameters,
} from '../../../services/agency/repositories/attribution.repository';
import { startAgencyDomain } from '../../helpers/agency-domain';
import { type AgencyHarness, newAffiliate, newProject, newUser } from './fixtures';

const at = (iso: string) => new Date(iso);

/**
 * Attribution at a moment (docs/affiliates.md): who had referred the user by then, and whether that
 * affiliate was suspended then. The timeline below is shared by every case.
 *
 *   Nov 21 12:00 affiliate joins      Nov 22 user referred      Dec 1 suspended      Dec 5 reactivated      Dec 9 suspended (still)
 */
describe('attribution at a moment (domain)', () => {
  let harness: AgencyHarness;
  let projectId: string;
  let alice: Awaited<ReturnType<typeof newAffiliate>>;
  const user = newUser();
  const unreferred = newUser();

  beforeAll(async () => {
    harness = await startAgencyDomain();
    projectId = newProject();
    harness.clock.set('2026-11-21T12:00:00.000Z');
    alice = await newAffiliate(harness, projectId, 'Alice');
    harness.clock.set('2026-11-22T00:00:00.000Z');
    await harness.domain.referrals.refer(projectId, user, alice.code);
    harness.clock.set('2026-12-01T00:00:00.000Z');
    await harness.domain.affiliates.suspend(projectId, alice.user, 'review', null);
    harness.clock.set('2026-12-05T00:00:00.000Z');
    await harness.domain.affiliates.reactivate(projectId, alice.user, null);
    harness.clock.set('2026-12-09T00:00:00.000Z');
    await harness.domain.affiliates.suspend(projectId, alice.user, 'again', null);
  });
  afterAll(() => harness.stop());

  const resolve = (moment: string, who = user) => harness.domain.attribution.resolveOne(projectId, { user: who, at: at(moment) });
  const aliceRef = () => ({ id: alice.affiliate.id, user: alice.user });

  it.each([
    ['before the referral', '2026-11-21T23:59:59.999Z', 'not_referred'],
    ['at the very moment of the referral', '2026-11-22T00:00:00.000Z', 'attributed'],
    ['while active', '2026-11-30T23:59:59.999Z', 'attributed'],
    ['at the moment of the suspension', '2026-12-01T00:00:00.000Z', 'affiliate_suspended'],
    ['during the suspension', '2026-12-03T00:00:00.000Z', 'affiliate_suspended'],
    ['at the moment of the reactivation', '2026-12-05T00:00:00.000Z', 'attributed'],
    ['between the suspensions', '2026-12-08T23:59:59.999Z', 'attributed'],
    ['during the open suspension', '2027-06-01T00:00:00.000Z', 'affiliate_suspended'],
  ])('%s: %s', async (_case, moment, outcome) => {
    const attribution = await resolve(moment);
    expect(attribution.outcome).toBe(outcome);
    if (outcome === 'not_referred') {
      expect(attribution).toEqual({
        outcome,
        affiliate: null,
        code: null,
        referredAt: null,
        affiliateStatus: null,
        master: null,
        spreadBps: 0,
        activeTierId: null,
        affiliateFlagged: false,
        userRebateRateBps: 0,
        ancestors: [],
      });
    } else {
      expect(attribution).toEqual({
        outcome,
        affiliate: aliceRef(),
        code: alice.code,
        referredAt: at('2026-11-22T00:00:00.000Z'),
        affiliateStatus: outcome === 'attributed' ? 'active' : 'suspended',
        master: null,
        spreadBps: 0,
        activeTierId: null,
        affiliateFlagged: false,
        userRebateRateBps: 0,
        ancestors: [],
      });
    }
  });

  it('answers nothing for a user nobody referred, and for another project', async () => {
    expect((await resolve('2026-11-25T00:00:00.000Z', unreferred)).outcome).toBe('not_referred');
    expect((await harness.domain.attribution.resolveOne(newProject(), { user, at: at('2026-11-25T00:00:00.000Z') })).outcome).toBe('not_referred');
  });

  it('answers a batch in request order, each item at its own moment, an invalid item failing alone', async () => {
    const results = await harness.domain.attribution.resolveBatch(projectId, [
      { user, at: at('2026-11-25T00:00:00.000Z') },
      { user: unreferred, at: at('2026-11-25T00:00:00.000Z') },
      { user: { identifier: 'not-an-address', identifierType: 'evm_address' }, at: at('2026-11-25T00:00:00.000Z') },
      { user, at: at('2026-12-02T00:00:00.000Z') },
      { user, at: undefined },
      { user: { ...user, identifier: user.identifier.toUpperCase().replace('0X', '0x') }, at: at('2026-11-25T00:00:00.000Z') },
      { user, at: at('2026-11-21T00:00:00.000Z') },
    ]);
    expect(results.map((result) => ('error' in result ? `error ${result.error.details[0]?.field}` : result.outcome))).toEqual([
      'attributed',
      'not_referred',
      'error items[2].user.identifier',
      'affiliate_suspended',
      'error items[4].at',
      'error items[5].user.identifier',
      'not_referred',
    ]);
  });

  it('answers the rebate rate of the code the user was referred with, as the code says when asked (0 while it has none)', async () => {
    const bob = await newAffiliate(harness, projectId, 'Bob');
    const referred = newUser();
    await harness.domain.referrals.refer(projectId, referred, bob.code.toUpperCase());
    const moment = harness.clock.now();
    const rate = async () => {
      const [answer] = await harness.domain.attribution.resolveBatch(projectId, [{ user: referred, at: moment }]);
      return answer && !('error' in answer) ? answer.userRebateRateBps : undefined;
    };
    expect(await rate()).toBe(0);
    const setRate = (bps: number | null) =>
      harness.sql.query(`UPDATE ${SERVICE_CATALOG.agency.schema}.affiliate_codes SET user_rebate_rate_bps = $1 WHERE project_id = $2 AND code = $3`, [
        bps,
        projectId,
        bob.code,
      ]);
    await setRate(1_234);
    expect(await rate()).toBe(1_234);
    await setRate(2_000);
    expect(await rate()).toBe(2_000);
    // Another affiliate's code of the same project gives nothing to Bob's users.
    expect((await resolve('2026-11-25T00:00:00.000Z')).userRebateRateBps).toBe(0);
  });

  it('refuses a batch of more than 1,000 items, and answers an empty one with nothing', async () => {
    const items = Array.from({ length: 1_001 }, () => ({ user, at: at('2026-11-25T00:00:00.000Z') }));
    await expect(harness.domain.attribution.resolveBatch(projectId, items)).rejects.toMatchObject({
      code: 'TOO_MANY_ITEMS',
      kind: 'invalid_argument',
    });
    expect(await harness.domain.attribution.resolveBatch(projectId, [])).toEqual([]);
  });

  it('answers a batch of 1,000 items with one statement', async () => {
    // A database handle of its own that counts every statement sent to PostgreSQL.
    let statements = 0;
    const pool = new pg.Pool({
      connectionString: harness.databaseUrl,
      max: 1,
      options: `-c search_path=${SERVICE_CATALOG.agency.schema}`,
      types: typeParsers,
    });
    const counted = new Kysely<AgencyDatabase>({
      dialect: new PostgresDialect({ pool }),
      log: (event) => {
        if (event.level === 'query') statements += 1;
      },
    });
    try {
      const service = new AttributionService(new AttributionRepository(counted));
      const results = await service.resolveBatch(
        projectId,
        Array.from({ length: 1_000 }, (_, n) => ({ user: n % 2 ? user : unreferred, at: at('2026-11-25T00:00:00.000Z') })),
      );
      expect(results.filter((result) => !('error' in result) && result.outcome === 'attributed')).toHaveLength(500);
      expect(statements).toBe(1);
    } finally {
      await counted.destroy();
    }
  });

  it('looks each item up by its key, its tier too, even when the statistics have not seen the project yet', async () => {
    // A young project: the statistics were gathered while another project filled the table, so the
    // planner expects this project to have about one referral. Were the items joined to "the
    // project's referrals" as a set, 500 items would each be compared with all 500 referrals.
    const client = new pg.Client({ connectionString: harness.databaseUrl, options: `-c search_path=${SERVICE_CATALOG.agency.schema}` });
    await client.connect();
    try {
      const seedReferrals = (project: string, count: number) =>
        client.query(
          `WITH aff AS (
             INSERT INTO affiliates (project_id, identifier_type, identifier, name, status, joined_at, updated_at)
             VALUES ($1::uuid, 'evm_address', '0x' || substr(md5($1::text || 'aff') || md5($1::text || 'aff2'), 1, 40), 'Seeded', 'active', '2026-01-01', '2026-01-01') RETURNING id
           )
           INSERT INTO referrals (project_id, identifier_type, identifier, affiliate_id, code, referred_at)
           SELECT $1::uuid, 'evm_address', '0x' || substr(md5($1::text || g) || md5($1::text || g || 'x'), 1, 40), aff.id, 'seeded', '2026-01-01' FROM aff, generate_series(1, $2::int) g`,
          [project, count],
        );
      // Memberships (the tier lookup's probe): the affiliate of each seeded project in a tier segment and in a plain one.
      const seedMemberships = (project: string) =>
        client.query(
          `WITH tier AS (
             INSERT INTO segment_tiers (segment_id, project_id, name, tier_rank, changed_at) VALUES (gen_random_uuid(), $1::uuid, 'Gold', 1, '2026-01-01') RETURNING segment_id
           )
           INSERT INTO audience_memberships (project_id, segment_id, identifier_type, identifier, kind, present, changed_at)
           SELECT $1::uuid, s.id, 'evm_address', '0x' || substr(md5($1::text || 'aff') || md5($1::text || 'aff2'), 1, 40), 'static', true, '2026-01-01'
           FROM (SELECT segment_id AS id FROM tier UNION ALL SELECT gen_random_uuid()) s`,
          [project],
        );
      const settled = newProject();
      await seedReferrals(settled, 3_000);
      await seedMemberships(settled);
      // Its referred users in a segment too: a table of thousands of memberships, where only an index finds one user's.
      await client.query(
        `INSERT INTO audience_memberships (project_id, segment_id, identifier_type, identifier, kind, present, changed_at)
         SELECT project_id, s.id, identifier_type, identifier, 'static', true, '2026-01-01' FROM referrals, (SELECT gen_random_uuid() AS id) s WHERE project_id = $1`,
        [settled],
      );
      await client.query('ANALYZE referrals, affiliates, audience_memberships, segment_tiers');
      const young = newProject();
      await seedReferrals(young, 500);
      await seedMemberships(young);
      const { rows: users } = await client.query<{ identifier: string }>('SELECT identifier FROM referrals WHERE project_id = $1', [young]);
      const queries = users.map(({ identifier }) => ({
        user: { identifier, identifierType: 'evm_address' as const },
        at: at('2026-06-01T00:00:00.000Z'),
      }));
      const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${RESOLVE_ATTRIBUTION_SQL}`,
        resolveAttributionParameters(young, queries),
      );
      const referralScans: Array<{ loops: number; rows: number }> = [];
      const membershipScans: Array<{ type: string; loops: number }> = [];
      const walk = (node: Record<string, unknown>) => {
        if (node['Relation Name'] === 'referrals') referralScans.push({ loops: node['Actual Loops'] as number, rows: node['Actual Rows'] as number });
        if (node['Relation Name'] === 'audience_memberships')
          membershipScans.push({ type: node['Node Type'] as string, loops: node['Actual Loops'] as number });
        for (const child of (node.Plans as Array<Record<string, unknown>> | undefined) ?? []) walk(child);
      };
      walk((rows[0]!['QUERY PLAN'] as Array<{ Plan: Record<string, unknown> }>)[0]!.Plan);
      // One probe per item, each finding at most its own referral; then one per level of the upline (the
      // seeded affiliate was referred by nobody, so level 2 finds none) or fewer when memoized per affiliate.
      expect(referralScans[0]).toEqual({ loops: 500, rows: 1 });
      expect(referralScans).toHaveLength(4);
      for (const scan of referralScans.slice(1)) expect(scan).toEqual({ loops: expect.any(Number), rows: 0 });
      expect(Math.max(...referralScans.map((scan) => scan.loops))).toBeLessThanOrEqual(500);
      // The current tier: an index probe of the affiliate's memberships per item at most (once per affiliate when memoized), never a scan of them all.
      expect(membershipScans).toEqual([{ type: expect.stringMatching(/^Index (Only )?Scan$/), loops: expect.any(Number) }]);
      expect(membershipScans[0]!.loops).toBeLessThanOrEqual(500);
      const answers = await harness.domain.attribution.resolveBatch(young, queries.slice(0, 3));
      expect(answers.map((answer) => ('error' in answer ? answer.error.code : answer.activeTierId))).toEqual([
        expect.any(String),
        expect.any(String),
        expect.any(String),
      ]);
    } finally {
      await client.end();
    }
  });
});
