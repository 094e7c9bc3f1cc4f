/**
 * Issue 25 §6: the agency's boards (GET /api/v1/payouts/leaderboard/{volume,revenue,referred-volume} and
 * /api/v1/leaderboard/referred), each through the gateway against the statement
 * AffiliateLeaderboardRepository sends for the same request (boards.ts runs them). The data: affiliates,
 * the users they referred and their conversions, written straight into the agency schema as the metrics
 * projection would hold them (not measured).
 */
import type pg from 'pg';
import { writeAffiliateCounts, writeBoardSizes } from './affiliate-counts';
import type { Api } from './api';
import { type BoardBench, PAGE_MIX_CHECKED, pageMix, statementsByPage } from './boards';
import type { BenchConfig } from './config';
import { random } from './data';
import { repositoryStatement } from './repository-statement';
import type { AgencyDatabase } from '../services/agency/database';
import { AffiliateLeaderboardRepository, type LeaderboardMetric } from '../services/agency/repositories/affiliate-leaderboard.repository';

export interface AgencyBoardsData {
  project: { id: string; keys: { readOnly: string } };
  affiliates: number;
  users: number;
  conversions: number;
  /** Entries of each board (only figures above zero are on one). */
  entries: { volume: number; revenue: number; referred_users: number; endUserVolume: number; endUserRevenue: number };
}

/** The phases of the agency's boards, in the order they run. */
export const AGENCY_BOARD_PHASES = [
  'leaderboard-volume',
  'leaderboard-revenue',
  'leaderboard-referred-users',
  'leaderboard-referred-volume',
  'leaderboard-volume-end-users',
  'leaderboard-revenue-end-users',
] as const;
type AgencyBoardPhase = (typeof AGENCY_BOARD_PHASES)[number];

/** Affiliate n's id, address and code; referred user n's address (0x + 40 hex digits of md5s, spread like real addresses). */
const affiliateId = (n: string) => `md5('bb-id-' || ${n})::uuid`;
const affiliateAddress = (n: string) => `'0x' || substr(md5('bb-aff-' || ${n}) || md5('bb-aff2-' || ${n}), 1, 40)`;
const userAddress = (n: string) => `'0x' || substr(md5('bb-user-' || ${n}) || md5('bb-user2-' || ${n}), 1, 40)`;
/** In JS, the same address as affiliateAddress's (for the referred-volume requests). */
async function affiliateAddresses(db: pg.Client, count: number): Promise<string[]> {
  const { rows } = await db.query<{ address: string }>(`SELECT ${affiliateAddress('g')} AS address FROM generate_series(1, $1::int) g ORDER BY g`, [
    count,
  ]);
  return rows.map((row) => row.address);
}

/**
 * `affiliates` affiliates with a code each; `users` users, each referred by one affiliate (a few affiliates
 * referring many, most one or none: the referred user's affiliate is drawn as A·r², r uniform); `conversions`
 * conversion facts spread over those users; and what the metrics projection adds up from them (per referred
 * user, per affiliate), as its consumer would have.
 */
export async function setUpAgencyBoards(api: Api, platformKey: string, db: pg.Client, config: BenchConfig): Promise<AgencyBoardsData> {
  const { affiliates, users, conversions } = config.boards;
  const { body } = await api.call<{ id: string; api_keys: { role: string; key: string }[] }>('POST', '/api/v1/projects', platformKey, {
    name: 'bench boards',
  });
  const project = { id: body.id, keys: { readOnly: body.api_keys.find((key) => key.role === 'read_only')!.key } };
  await db.query('BEGIN');
  // Triggers (the affiliate counts, the metrics' copies of status and region) and foreign keys silenced for this
  // transaction: the rows below are written whole, as those triggers would have kept them.
  await db.query('SET LOCAL session_replication_role = replica');
  await db.query(
    `INSERT INTO agency.affiliates (id, project_id, identifier_type, identifier, name, region, status, joined_at, updated_at)
     SELECT ${affiliateId('g')}, $1, 'evm_address', ${affiliateAddress('g')}, 'Affiliate ' || g, NULL, 'active', now() - make_interval(mins => g), now()
     FROM generate_series(1, $2::int) g`,
    [project.id, affiliates],
  );
  await writeAffiliateCounts(db, project.id);
  await db.query(
    `INSERT INTO agency.affiliate_codes (project_id, code, affiliate_id, created_at)
     SELECT $1, 'bbaff' || g, ${affiliateId('g')}, now() FROM generate_series(1, $2::int) g`,
    [project.id, affiliates],
  );
  await db.query(
    `CREATE TEMP TABLE bench_board_users ON COMMIT DROP AS
     SELECT u, ${userAddress('u')} AS identifier, 1 + floor($1::int * ((hashtext('bb-ref-' || u) & 1048575) / 1048576.0) ^ 2)::int AS affiliate
     FROM generate_series(1, $2::int) u`,
    [affiliates, users],
  );
  await db.query('CREATE INDEX ON bench_board_users (u)');
  await db.query('ANALYZE bench_board_users');
  await db.query(
    `INSERT INTO agency.referrals (project_id, identifier_type, identifier, affiliate_id, code, referred_at)
     SELECT $1, 'evm_address', identifier, ${affiliateId('affiliate')}, 'bbaff' || affiliate, now() - interval '60 days' FROM bench_board_users`,
    [project.id],
  );
  // Each conversion by one of the users (uniformly), its USD volume skewed (most small, a few large), revenue a fiftieth of it.
  await db.query(
    `INSERT INTO agency.conversion_facts (project_id, conversion_id, name, status, occurred_at, identifier_type, identifier, affiliate_id, volume_usd, revenue_usd, recorded_at)
     SELECT $1, 'bb-' || c.g, 'trade', 'processed', now() - make_interval(mins => c.g % 43200), 'evm_address', u.identifier, ${affiliateId('u.affiliate')},
            round(c.v ^ 2 / 1e7, 2), round(c.v ^ 2 / 5e8, 2), now()
     FROM (SELECT g, 1 + (hashtext('bb-conv-' || g) & 2147483647) % $3::int AS u, (hashtext('bb-vol-' || g) & 1048575)::numeric AS v
           FROM generate_series(1, $2::int) g) c
     JOIN bench_board_users u ON u.u = c.u`,
    [project.id, conversions, users],
  );
  await db.query(
    `INSERT INTO agency.referred_user_metrics (affiliate_id, identifier_type, identifier, project_id, volume_usd, revenue_usd, conversions, first_conversion_at, last_conversion_at)
     SELECT affiliate_id, identifier_type, identifier, project_id, sum(volume_usd), sum(revenue_usd), count(*), min(occurred_at), max(occurred_at)
     FROM agency.conversion_facts WHERE project_id = $1 GROUP BY 1, 2, 3, 4`,
    [project.id],
  );
  await db.query(
    `INSERT INTO agency.affiliate_metrics (affiliate_id, project_id, status, region, volume_usd, revenue_usd, conversions, end_users, converting_users, referred_volume_usd, updated_at)
     SELECT a.id, a.project_id, a.status, a.region, coalesce(f.volume, 0), coalesce(f.revenue, 0), coalesce(f.conversions, 0), coalesce(r.referred, 0),
            coalesce(f.converting, 0), 0, now()
     FROM agency.affiliates a
     LEFT JOIN (SELECT affiliate_id, sum(volume_usd) AS volume, sum(revenue_usd) AS revenue, sum(conversions) AS conversions, count(*) AS converting
                FROM agency.referred_user_metrics WHERE project_id = $1 GROUP BY 1) f ON f.affiliate_id = a.id
     LEFT JOIN (SELECT affiliate_id, count(*) AS referred FROM agency.referrals WHERE project_id = $1 GROUP BY 1) r ON r.affiliate_id = a.id
     WHERE a.project_id = $1`,
    [project.id],
  );
  await writeBoardSizes(db, project.id);
  await db.query('COMMIT');
  await db.query(
    'VACUUM (ANALYZE) agency.affiliates, agency.affiliate_codes, agency.referrals, agency.conversion_facts, agency.referred_user_metrics, agency.affiliate_metrics',
  );
  await db.query('CHECKPOINT');
  const { rows } = await db.query<{ volume: number; revenue: number; referred: number; end_volume: number; end_revenue: number; facts: number }>(
    `SELECT (SELECT count(*) FROM agency.affiliate_metrics WHERE project_id = $1 AND volume_usd > 0)::int AS volume,
            (SELECT count(*) FROM agency.affiliate_metrics WHERE project_id = $1 AND revenue_usd > 0)::int AS revenue,
            (SELECT count(*) FROM agency.affiliate_metrics WHERE project_id = $1 AND end_users > 0)::int AS referred,
            (SELECT count(*) FROM (SELECT 1 FROM agency.referred_user_metrics WHERE project_id = $1 GROUP BY identifier, identifier_type HAVING sum(volume_usd) > 0) s)::int AS end_volume,
            (SELECT count(*) FROM (SELECT 1 FROM agency.referred_user_metrics WHERE project_id = $1 GROUP BY identifier, identifier_type HAVING sum(revenue_usd) > 0) s)::int AS end_revenue,
            (SELECT count(*) FROM agency.conversion_facts WHERE project_id = $1)::int AS facts`,
    [project.id],
  );
  const counts = rows[0]!;
  // The sizes the pages read (0025) must be the boards' counts, or the pages would say a wrong total.
  const kept = await db.query<{ metric: string; entries: number }>(
    'SELECT metric, entries::int AS entries FROM agency.affiliate_board_sizes WHERE project_id = $1',
    [project.id],
  );
  const expected: Record<string, number> = { volume: counts.volume, revenue: counts.revenue, referred_users: counts.referred };
  if (kept.rows.length !== 3) throw new Error(`agency boards: ${kept.rows.length} kept sizes of 3 boards`);
  for (const { metric, entries } of kept.rows) {
    if (entries !== expected[metric]) throw new Error(`agency boards: the kept size of ${metric} is ${entries}, its board has ${expected[metric]}`);
  }
  return {
    project,
    affiliates,
    users,
    conversions: counts.facts,
    entries: {
      volume: counts.volume,
      revenue: counts.revenue,
      referred_users: counts.referred,
      endUserVolume: counts.end_volume,
      endUserRevenue: counts.end_revenue,
    },
  };
}

type Body = { results: Array<{ user_identifier: string; total_amount?: string; total_referred_users?: number }> };
type Row = Record<string, unknown>;

/** The benchmark of one of the agency's boards, its requests' statements recorded from AffiliateLeaderboardRepository. */
export async function agencyBoardBench(phase: AgencyBoardPhase, data: AgencyBoardsData, db: pg.Client, config: BenchConfig): Promise<BoardBench> {
  const { pageSize, topShare } = config.boards;
  const projectId = data.project.id;
  const scope =
    `${data.conversions.toLocaleString('en-US')} conversions of ${data.users.toLocaleString('en-US')} users referred by ` +
    `${data.affiliates.toLocaleString('en-US')} affiliates`;
  const common = { phase, key: data.project.keys.readOnly, schema: 'agency' as const, checked: PAGE_MIX_CHECKED, p99Goal: false };
  if (phase === 'leaderboard-referred-volume') {
    // Requests of `referredVolumeUsers` affiliates each, drawn among all of them (those with nothing answer 0).
    const addresses = await affiliateAddresses(db, data.affiliates);
    const draw = random(23);
    const requests = Array.from({ length: 1_000 }, () =>
      Array.from({ length: config.boards.referredVolumeUsers }, () => addresses[Math.floor(draw() * addresses.length)]!),
    );
    const recorded = await Promise.all(
      requests.map((users) =>
        repositoryStatement<AgencyDatabase>((db) =>
          new AffiliateLeaderboardRepository(db).referralFigures(
            projectId,
            users.map((identifier) => ({ identifier, identifierType: 'evm_address' as const })),
          ),
        ),
      ),
    );
    const asked = (n: number) => requests[n % requests.length]!;
    return {
      ...common,
      title: `${phase}: GET /api/v1/payouts/leaderboard/referred-volume`,
      describe: `${scope}; each request names ${config.boards.referredVolumeUsers} affiliates (1,000 different requests)`,
      path: (n) => `/api/v1/payouts/leaderboard/referred-volume?identifier_type=evm_address&user_identifiers=${asked(n).join(',')}`,
      statement: (n) => recorded[n % recorded.length]!,
      fromGateway: (body) =>
        (body as { referred_volumes: Array<{ user_identifier: string; referred_volume: number }> }).referred_volumes
          .map((item) => `${item.user_identifier}:${item.referred_volume}`)
          .join(','),
      fromSql: (rows: Row[], n) => {
        const volumes = new Map(rows.map((row) => [String(row.identifier), Number(row.volume_usd)]));
        return asked(n)
          .map((identifier) => `${identifier}:${volumes.get(identifier) ?? 0}`)
          .join(',');
      },
    };
  }
  const board = {
    'leaderboard-volume': { metric: 'volume', audience: 'affiliate', entries: data.entries.volume, path: '/api/v1/payouts/leaderboard/volume' },
    'leaderboard-revenue': { metric: 'revenue', audience: 'affiliate', entries: data.entries.revenue, path: '/api/v1/payouts/leaderboard/revenue' },
    'leaderboard-referred-users': {
      metric: 'referred_users',
      audience: 'affiliate',
      entries: data.entries.referred_users,
      path: '/api/v1/leaderboard/referred',
    },
    'leaderboard-volume-end-users': {
      metric: 'volume',
      audience: 'end_user',
      entries: data.entries.endUserVolume,
      path: '/api/v1/payouts/leaderboard/volume',
    },
    'leaderboard-revenue-end-users': {
      metric: 'revenue',
      audience: 'end_user',
      entries: data.entries.endUserRevenue,
      path: '/api/v1/payouts/leaderboard/revenue',
    },
  }[phase] as { metric: LeaderboardMetric; audience: 'affiliate' | 'end_user'; entries: number; path: string };
  const pages = pageMix(board.entries, pageSize, topShare, 13);
  const statement = await statementsByPage(pages, (page) =>
    repositoryStatement<AgencyDatabase>((db) => {
      const repository = new AffiliateLeaderboardRepository(db);
      const asked = { page, pageSize, offset: (page - 1) * pageSize };
      // As LeaderboardService.page chooses: the referred-users board and user_type=affiliate rank affiliates.
      return board.audience === 'affiliate'
        ? repository.affiliatesPage(projectId, board.metric, asked)
        : repository.endUsersPage(projectId, board.metric as 'volume' | 'revenue', asked);
    }),
  );
  // The referred-users board takes no user_type (affiliates only).
  const userType = board.metric === 'referred_users' ? '' : `user_type=${board.audience}&`;
  return {
    ...common,
    title: `${phase}: GET ${board.path}${userType ? `?${userType.slice(0, -1)}` : ''}`,
    describe:
      `${scope}; ${board.entries.toLocaleString('en-US')} ${board.audience === 'affiliate' ? 'affiliates' : 'users'} on the board; ` +
      `pages of ${pageSize}, ${Math.round(topShare * 100)}% of requests for the first ten pages, the rest anywhere in the board`,
    path: (n) => `${board.path}?${userType}page=${pages[n % pages.length]}&page_size=${pageSize}`,
    statement,
    fromGateway: (body) =>
      (body as Body).results.map((entry) => `${entry.user_identifier}:${entry.total_amount ?? entry.total_referred_users}`).join(','),
    // An empty page comes back as one row of the board's size beside nulls: not an entry.
    fromSql: (rows: Row[]) =>
      rows
        .filter((row) => row.identifier !== null)
        .map((row) => `${String(row.identifier)}:${String(row.total)}`)
        .join(','),
  };
}
