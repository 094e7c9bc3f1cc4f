/**
 * Issue 10, section 2: the dashboard's affiliate list (GET /api/v1/projects/:projectId/affiliates)
 * over 100,000 affiliates with metrics, for a mix of filters and sorts (a deep page among them),
 * through the gateway, against the same page query and count sent directly with pg.
 */
import pg from 'pg';
import { writeAffiliateCounts, writeBoardSizes } from './affiliate-counts';
import type { Api } from './api';
import type { BenchConfig } from './config';
import { percentile, random } from './data';
import { keepAliveGet, runHttpLoad, runQueryLoad, type RunFigures } from './load';
import { fmt, table } from './report';
import { type EventLoopGap, EventLoopGaps, SlowRequests } from './stalls';

export interface AffiliateListCase {
  label: string;
  /** The query string after `?` (page and page_size included). */
  query: string;
  sortBy: 'joined_at' | 'volume_usd' | 'revenue_usd' | 'conversions' | 'end_users' | 'referred_volume_usd';
  order: 'asc' | 'desc';
  status?: 'active' | 'suspended';
  region?: string;
  conversions?: string[];
  q?: string;
  /** Members of this audience segment. */
  audience?: string;
  page: number;
}

export interface AffiliateListData {
  project: { id: string; keys: { admin: string; readOnly: string } };
  affiliates: number;
  /** The requests of the load, in order (a weighted mix of `cases`). */
  mix: AffiliateListCase[];
  cases: AffiliateListCase[];
  /** A segment of one in twenty affiliates (the agency's membership projection), for the `audience` filter. */
  segmentId: string;
}

const REGIONS = ['US', 'DE', 'BR', 'FR', 'GB', 'JP', 'IN', 'NG', 'AR', 'KR'];

/** 100,000 affiliates (scaled) with metrics, per-name counts and earnings, written straight into the agency schema (not measured). */
export async function setUpAffiliateList(api: Api, platformKey: string, db: pg.Client, config: BenchConfig): Promise<AffiliateListData> {
  const { affiliates, pageSize } = config.affiliateList;
  const { body } = await api.call<{ id: string; api_keys: { role: string; key: string }[] }>('POST', '/api/v1/projects', platformKey, {
    name: 'bench affiliate list',
  });
  const key = (role: string) => body.api_keys.find((candidate) => candidate.role === role)!.key;
  const project = { id: body.id, keys: { admin: key('admin'), readOnly: key('read_only') } };
  const currencyId = (await db.query<{ id: string }>('SELECT gen_random_uuid() AS id')).rows[0]!.id;
  await db.query('BEGIN');
  // The per-row trigger that keeps affiliate_counts would update one row 100,000 times in this
  // transaction (each update walks the row's growing version chain: ~7 minutes); the counts are
  // written once below instead. `replica` silences triggers (foreign keys included) for this transaction only.
  await db.query('SET LOCAL session_replication_role = replica');
  // Joined over a year; one in ten suspended; regions spread over ten countries (one in ten none).
  await db.query(
    `INSERT INTO agency.affiliates (id, project_id, identifier_type, identifier, name, region, status, joined_at, updated_at)
     SELECT md5('al-id-' || g)::uuid, $1, 'evm_address', '0x' || substr(md5('al-aff-' || g) || md5('al-aff2-' || g), 1, 40), 'Affiliate ' || g,
            CASE WHEN g % 10 = 0 THEN NULL ELSE ($3::text[])[1 + (hashtext('r' || g) & 1023) % 10] END,
            CASE WHEN g % 10 = 3 THEN 'suspended' ELSE 'active' END,
            now() - ((hashtext('j' || g) & 65535) || ' minutes')::interval * 8, now()
     FROM generate_series(1, $2::int) g`,
    [project.id, affiliates, REGIONS],
  );
  await writeAffiliateCounts(db, project.id);
  // Figures skewed like real ones: most affiliates small, a few large; a third with nothing yet.
  await db.query(
    `INSERT INTO agency.affiliate_metrics (affiliate_id, project_id, status, region, volume_usd, revenue_usd, conversions, end_users, referred_volume_usd, updated_at)
     SELECT a.id, a.project_id, a.status, a.region,
            CASE WHEN h % 3 = 0 THEN 0 ELSE round(((h & 1048575)::numeric ^ 2) / 100000, 2) END,
            CASE WHEN h % 3 = 0 THEN 0 ELSE round((h & 65535)::numeric / 100, 2) END,
            CASE WHEN h % 3 = 0 THEN 0 ELSE 1 + (h & 4095) END,
            CASE WHEN h % 3 = 0 THEN 0 ELSE 1 + (h & 511) END,
            CASE WHEN h % 50 = 1 THEN (h & 16777215)::numeric ELSE 0 END,
            now()
     FROM (SELECT id, project_id, status, region, abs(hashtext(id::text)) AS h FROM agency.affiliates WHERE project_id = $1) a`,
    [project.id],
  );
  await writeBoardSizes(db, project.id);
  await db.query(
    `INSERT INTO agency.affiliate_conversion_counts (affiliate_id, name, project_id, conversions)
     SELECT m.affiliate_id, n.name, m.project_id, greatest(1, m.conversions / n.share)
     FROM agency.affiliate_metrics m
     JOIN (VALUES ('trade', 1, 1), ('swap', 3, 3), ('signup', 20, 20)) AS n(name, share, every) ON abs(hashtext(m.affiliate_id::text || n.name)) % n.every = 0
     WHERE m.project_id = $1 AND m.conversions > 0`,
    [project.id],
  );
  await db.query(
    "INSERT INTO agency.metric_currencies (id, project_id, chain_id, address, name, decimals) VALUES ($1, $2, 8453, '0x' || repeat('ab', 20), 'USDC', 6)",
    [currencyId, project.id],
  );
  await db.query(
    `INSERT INTO agency.affiliate_earnings (affiliate_id, kind, currency_id, project_id, amount)
     SELECT affiliate_id, 'affiliate', $2, project_id, conversions * 1000000 FROM agency.affiliate_metrics WHERE project_id = $1 AND conversions > 0`,
    [project.id, currencyId],
  );
  const segmentId = (await db.query<{ id: string }>('SELECT gen_random_uuid() AS id')).rows[0]!.id;
  await db.query(
    `INSERT INTO agency.audience_memberships (project_id, segment_id, identifier_type, identifier, kind, present, changed_at)
     SELECT project_id, $2, identifier_type, identifier, 'static', true, now() FROM agency.affiliates WHERE project_id = $1 AND abs(hashtext('seg' || id::text)) % 20 = 0`,
    [project.id, segmentId],
  );
  // What the triggers silenced above would have kept: the filter entries (a row per affiliate and
  // segment or conversion name) and their counts (the affiliate counts are written above).
  await db.query(
    `INSERT INTO agency.affiliate_filter_entries (affiliate_id, kind, value, project_id, status, region, joined_at, volume_usd, revenue_usd, conversions, end_users, referred_volume_usd)
     SELECT a.id, f.kind, f.value, a.project_id, m.status, m.region, a.joined_at, m.volume_usd, m.revenue_usd, m.conversions, m.end_users, m.referred_volume_usd
     FROM (SELECT affiliate_id, 'conversion' AS kind, name AS value FROM agency.affiliate_conversion_counts WHERE project_id = $1
           UNION SELECT a.id, 'audience', am.segment_id::text FROM agency.audience_memberships am
                 JOIN agency.affiliates a ON a.project_id = am.project_id AND a.identifier_type = am.identifier_type AND a.identifier = am.identifier
                 WHERE am.project_id = $1 AND am.present) f
     JOIN agency.affiliates a ON a.id = f.affiliate_id JOIN agency.affiliate_metrics m ON m.affiliate_id = a.id`,
    [project.id],
  );
  await db.query(
    `INSERT INTO agency.affiliate_filter_counts (project_id, kind, value, status, region, affiliates)
     SELECT project_id, kind, value, status, region, count(*) FROM agency.affiliate_filter_entries WHERE project_id = $1 GROUP BY 1, 2, 3, 4, 5`,
    [project.id],
  );
  await db.query('COMMIT');
  await db.query(
    'VACUUM (ANALYZE) agency.affiliates, agency.affiliate_metrics, agency.affiliate_conversion_counts, agency.affiliate_earnings, agency.metric_currencies, agency.audience_memberships, agency.affiliate_counts, ' +
      'agency.affiliate_region_counts, agency.affiliate_filter_entries, agency.affiliate_filter_counts',
  );
  await db.query('CHECKPOINT');

  const lastPage = Math.ceil(affiliates / pageSize);
  const cases: Array<[AffiliateListCase, number]> = [
    [listCase('newest first', { sortBy: 'joined_at', order: 'desc', page: 1 }, pageSize), 15],
    [listCase('volume, top pages', { sortBy: 'volume_usd', order: 'desc', page: 1 }, pageSize), 25],
    [listCase('volume, page 5', { sortBy: 'volume_usd', order: 'desc', page: 5 }, pageSize), 10],
    [listCase('revenue ascending', { sortBy: 'revenue_usd', order: 'asc', page: 1 }, pageSize), 5],
    [listCase('conversions, active only', { sortBy: 'conversions', order: 'desc', status: 'active', page: 1 }, pageSize), 10],
    [listCase('end users, region DE', { sortBy: 'end_users', order: 'desc', region: 'DE', page: 1 }, pageSize), 10],
    [listCase('referred volume (masters)', { sortBy: 'referred_volume_usd', order: 'desc', page: 1 }, pageSize), 5],
    [listCase('volume, did a signup', { sortBy: 'volume_usd', order: 'desc', conversions: ['signup'], page: 1 }, pageSize), 10],
    [listCase('search by address prefix', { sortBy: 'joined_at', order: 'desc', q: '0xab', page: 1 }, pageSize), 5],
    [
      listCase(
        `volume, deep page ${Math.floor(lastPage / 2)}`,
        { sortBy: 'volume_usd', order: 'desc', page: Math.max(1, Math.floor(lastPage / 2)) },
        pageSize,
      ),
      5,
    ],
  ];
  const weights = cases.reduce((sum, [, weight]) => sum + weight, 0);
  const draw = random(17);
  const mix = Array.from({ length: 10_000 }, () => {
    let pick = draw() * weights;
    for (const [one, weight] of cases) {
      pick -= weight;
      if (pick < 0) return one;
    }
    return cases[0]![0];
  });
  return { project, affiliates, mix, cases: cases.map(([one]) => one), segmentId };
}

function listCase(label: string, fields: Omit<AffiliateListCase, 'label' | 'query'>, pageSize: number): AffiliateListCase {
  const params = new URLSearchParams({ sort_by: fields.sortBy, order: fields.order, page: String(fields.page), page_size: String(pageSize) });
  if (fields.status) params.set('status', fields.status);
  if (fields.region) params.set('region', fields.region);
  if (fields.conversions) params.set('conversions', fields.conversions.join(','));
  if (fields.q) params.set('q', fields.q);
  if (fields.audience) params.set('audience', fields.audience);
  return { label, query: params.toString(), ...fields };
}

export const affiliateListPath = (data: AffiliateListData, one: AffiliateListCase) => `/api/v1/projects/${data.project.id}/affiliates?${one.query}`;

/** The repository's page query and its count (AffiliateRepository.list), as SQL sent with pg. */
export function affiliateListSql(
  one: AffiliateListCase,
  pageSize: number,
  range = { limit: pageSize, offset: (one.page - 1) * pageSize },
): { page: string; count: string; values: unknown[]; countValues: unknown[] } {
  const values: unknown[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const project = param(undefined);
  const where = [`a.project_id = ${project}`];
  if (one.status) where.push(`a.status = ${param(one.status)}`);
  if (one.region) where.push(`a.region = ${param(one.region)}`);
  if (one.q) where.push(`(a.identifier LIKE ${param(`${one.q}%`)} OR lower(a.name) LIKE ${param(`${one.q.toLowerCase()}%`)})`);
  if (one.audience) {
    where.push(
      `EXISTS (SELECT 1 FROM audience_memberships am WHERE am.segment_id IN (${param(one.audience)}) AND am.project_id = a.project_id ` +
        `AND am.identifier_type = a.identifier_type AND am.identifier = a.identifier AND am.present = true)`,
    );
  }
  // As the repository does: status and region are read on affiliate_metrics (copies in the metric's indexes); a search needs the affiliates.
  const onAffiliates = Boolean(one.q);
  const onMetrics = [one.status ? `m.status = $2` : '', one.region ? `m.region = $${one.status ? 3 : 2}` : '']
    .filter(Boolean)
    .map((condition) => ` AND ${condition}`)
    .join('');
  const names = one.conversions ? param(one.conversions) : undefined;
  const exists = (id: string) =>
    `EXISTS (SELECT 1 FROM affiliate_conversion_counts cc WHERE cc.affiliate_id = ${id} AND cc.project_id = ${project} AND cc.name = ANY(${names}))`;
  if (names) where.push(exists('a.id'));
  const filterValues = [...values];
  const order = one.order.toUpperCase();
  const metricOrder = `ORDER BY m.${one.sortBy} ${order}, m.affiliate_id ${order}`;
  // As the repository does (affiliate-list/filter-entries.ts): a segment or a conversion name (one value; the
  // bench's cases have no more) without a search is a range of affiliate_filter_entries' index for the sort.
  const entry = one.q
    ? undefined
    : one.audience
      ? { kind: 'audience', value: one.audience }
      : one.conversions
        ? { kind: 'conversion', value: one.conversions[0]! }
        : undefined;
  if (one.conversions && one.conversions.length > 1) throw new Error('affiliateListSql: one conversion name at most');
  const entryValues: unknown[] = [undefined];
  const entryParam = (value: unknown) => {
    entryValues.push(value);
    return `$${entryValues.length}`;
  };
  const onEntries = entry
    ? `e.project_id = $1 AND e.kind = ${entryParam(entry.kind)} AND e.value = ${entryParam(entry.value)}` +
      (one.status ? ` AND e.status = ${entryParam(one.status)}` : '') +
      (one.region ? ` AND e.region = ${entryParam(one.region)}` : '') +
      (one.audience && one.conversions
        ? ` AND EXISTS (SELECT 1 FROM affiliate_filter_entries x WHERE x.affiliate_id = e.affiliate_id AND x.kind = 'conversion' AND x.value = ANY(${entryParam(one.conversions)}))`
        : '')
    : '';
  const page = entry
    ? `SELECT e.affiliate_id AS id FROM affiliate_filter_entries e WHERE ${onEntries} ORDER BY e.${one.sortBy} ${order}, e.affiliate_id ${order}`
    : one.sortBy === 'joined_at' && one.q
      ? `SELECT f.id FROM (SELECT a.id, a.joined_at FROM affiliates a WHERE ${where.join(' AND ')} OFFSET 0) f ORDER BY f.joined_at ${order}, f.id ${order}`
      : one.sortBy === 'joined_at'
        ? `SELECT a.id FROM affiliates a WHERE ${where.join(' AND ')} ORDER BY a.joined_at ${order}, a.id ${order}`
        : onAffiliates
          ? `SELECT f.id FROM (SELECT a.id, (SELECT m.${one.sortBy} FROM affiliate_metrics m WHERE m.affiliate_id = a.id) AS key FROM affiliates a WHERE ${where.join(' AND ')} OFFSET 0) f ` +
            `WHERE f.key IS NOT NULL ORDER BY f.key ${order}, f.id ${order}`
          : `SELECT m.affiliate_id AS id FROM affiliate_metrics m WHERE m.project_id = ${project}${onMetrics} ${metricOrder}`;
  // As the repository does: without a search, kept counts (per segment or name, status and region; per
  // status and region; per status); with one, a count of the matches.
  const countOn = (table: string, filters: Array<[string, string | undefined]>) => {
    const kept: unknown[] = [undefined];
    const conditions = filters.filter(([, value]) => value !== undefined).map(([column, value]) => `${column} = $${kept.push(value)}`);
    return {
      count: `SELECT coalesce(sum(affiliates), 0) AS total FROM ${table} WHERE ${['project_id = $1', ...conditions].join(' AND ')}`,
      countValues: kept,
    };
  };
  const counted = one.q
    ? { count: `SELECT count(*) AS total FROM affiliates a WHERE ${where.join(' AND ')}`, countValues: filterValues }
    : entry
      ? countOn('affiliate_filter_counts', [
          ['kind', entry.kind],
          ['value', entry.value],
          ['status', one.status],
          ['region', one.region],
        ])
      : one.region
        ? countOn('affiliate_region_counts', [
            ['region', one.region],
            ['status', one.status],
          ])
        : countOn('affiliate_counts', [['status', one.status]]);
  if (entry) {
    return {
      page: `${page} LIMIT ${entryParam(range.limit)} OFFSET ${entryParam(range.offset)}`,
      values: entryValues,
      ...counted,
    };
  }
  return {
    page: `${page} LIMIT ${param(range.limit)} OFFSET ${param(range.offset)}`,
    values,
    ...counted,
  };
}

export interface DirectAffiliateList {
  page(one: AffiliateListCase): Promise<{ ids: string[]; total: number }>;
  explain(one: AffiliateListCase): Promise<string>;
  close(): Promise<void>;
}

export function openDirectAffiliateList(databaseUrl: string, data: AffiliateListData, connections: number, pageSize: number): DirectAffiliateList {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: connections, application_name: 'bench-direct', options: '-c search_path=agency' });
  // Idle connections ended at clean-up are no error.
  pool.on('error', () => undefined);
  const statements = (one: AffiliateListCase, range?: { limit: number; offset: number }) => {
    const sql = affiliateListSql(one, pageSize, range);
    return { ...sql, values: [data.project.id, ...sql.values.slice(1)], countValues: [data.project.id, ...sql.countValues.slice(1)] };
  };
  const total = async (sql: ReturnType<typeof statements>) =>
    Number((await pool.query<{ total: string }>(sql.count, sql.countValues)).rows[0]!.total);
  const ids = async (sql: ReturnType<typeof statements>) => (await pool.query<{ id: string }>(sql.page, sql.values)).rows.map((row) => row.id);
  return {
    // As the repository does: from the 200th row on, the total first, and a page past the middle read from the far end.
    page: async (one) => {
      const sql = statements(one);
      const offset = (one.page - 1) * pageSize;
      if (offset < 200) {
        const [page, counted] = await Promise.all([ids(sql), total(sql)]);
        return { ids: page, total: counted };
      }
      const counted = await total(sql);
      const fromEnd = counted - offset - pageSize;
      if (offset >= counted || fromEnd >= offset) return { ids: offset >= counted ? [] : await ids(sql), total: counted };
      const flipped = statements(
        { ...one, order: one.order === 'asc' ? 'desc' : 'asc' },
        { limit: pageSize + Math.min(0, fromEnd), offset: Math.max(0, fromEnd) },
      );
      return { ids: (await ids(flipped)).reverse(), total: counted };
    },
    explain: async (one) => {
      const sql = statements(one);
      const plan = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql.page}`, sql.values);
      return `-- ${one.label} (${one.query})\n${plan.rows.map((row) => row['QUERY PLAN']).join('\n')}`;
    },
    close: () => pool.end(),
  };
}

/** Every case's page through the gateway names the same affiliates, with the same total, as the direct query. */
export async function crossCheckAffiliateList(
  api: Api,
  data: AffiliateListData,
  direct: DirectAffiliateList,
  cases: AffiliateListCase[] = data.cases,
): Promise<string> {
  for (const one of cases) {
    const { body } = await api.call<{ results: Array<{ id: string }>; total_results: number }>(
      'GET',
      affiliateListPath(data, one),
      data.project.keys.readOnly,
    );
    const viaSql = await direct.page(one);
    if (body.results.map((item) => item.id).join(',') !== viaSql.ids.join(',') || body.total_results !== viaSql.total) {
      throw new Error(`affiliate list (${one.label}): the gateway and the direct query disagree`);
    }
  }
  return `all ${cases.length} cases agree (ids in order, total_results)`;
}

export function runAffiliateListGateway(
  baseUrl: string,
  data: AffiliateListData,
  connections: number,
  durationS: number,
  label: string,
): Promise<RunFigures> {
  let next = 0;
  return runHttpLoad(
    baseUrl,
    data.project.keys.readOnly,
    () => affiliateListPath(data, data.mix[next++ % data.mix.length]!),
    connections,
    durationS,
    label,
  );
}

export function runAffiliateListDirect(
  direct: DirectAffiliateList,
  data: AffiliateListData,
  connections: number,
  durationS: number,
  label: string,
): Promise<RunFigures> {
  return runQueryLoad((n) => direct.page(data.mix[n % data.mix.length]!), connections, durationS, label);
}

/**
 * The dashboard's view of the goal: every filter (none, each status, a region, a status and a region,
 * an address prefix, a conversion name, an audience segment) x every sort x both orders, each on its
 * first page, its middle page and its last, so no page of any filter and sort escapes the figure.
 */
export async function dashboardCases(data: AffiliateListData, direct: DirectAffiliateList, pageSize: number): Promise<AffiliateListCase[]> {
  const filters: Array<[string, Partial<AffiliateListCase>]> = [
    ['all', {}],
    ['active', { status: 'active' }],
    ['suspended', { status: 'suspended' }],
    ['region DE', { region: 'DE' }],
    ['active in DE', { status: 'active', region: 'DE' }],
    ['q 0xab', { q: '0xab' }],
    ['did a signup', { conversions: ['signup'] }],
    ['in a segment', { audience: data.segmentId }],
  ];
  const sorts: AffiliateListCase['sortBy'][] = ['joined_at', 'volume_usd', 'revenue_usd', 'conversions', 'end_users', 'referred_volume_usd'];
  const cases: AffiliateListCase[] = [];
  for (const [name, filter] of filters) {
    const { total } = await direct.page(listCase(name, { sortBy: 'joined_at', order: 'desc', page: 1, ...filter }, pageSize));
    const last = Math.max(1, Math.ceil(total / pageSize));
    const pages = [...new Set([1, Math.max(1, Math.ceil(last / 2)), last])];
    for (const sortBy of sorts) {
      for (const order of ['desc', 'asc'] as const) {
        for (const page of pages)
          cases.push(listCase(`${name}, ${sortBy} ${order}, page ${page} of ${last}`, { sortBy, order, page, ...filter }, pageSize));
      }
    }
  }
  // Shuffled (the same way each run), so the connections never march through one filter together.
  const draw = random(29);
  for (let i = cases.length - 1; i > 0; i--) {
    const j = Math.floor(draw() * (i + 1));
    [cases[i], cases[j]] = [cases[j]!, cases[i]!];
  }
  return cases;
}

export interface DashboardRun {
  figures: RunFigures;
  /** Latencies (ms) per case label. */
  perCase: Map<string, number[]>;
  /** The requests that took SLOW_REQUEST_MS or more, with their wall-clock start (./stalls.ts). */
  slow: SlowRequests;
  /** Pauses of this process during the run. */
  gaps: EventLoopGap[];
}

async function runCases(
  cases: AffiliateListCase[],
  send: (one: AffiliateListCase) => Promise<unknown>,
  connections: number,
  durationS: number,
  label: string,
): Promise<DashboardRun> {
  const perCase = new Map<string, number[]>(cases.map((one) => [one.label, []]));
  const slow = new SlowRequests();
  const gaps = new EventLoopGaps();
  gaps.start();
  const figures = await runQueryLoad(
    async (n) => {
      const one = cases[n % cases.length]!;
      const sent = performance.now();
      await send(one);
      const took = performance.now() - sent;
      perCase.get(one.label)!.push(took);
      slow.record(one.label, sent, took);
    },
    connections,
    durationS,
    label,
  ).finally(() => gaps.stop());
  return { figures, perCase, slow, gaps: gaps.gaps };
}

/** Each loop waits for its page before asking for the next: an admin's dashboard, not a flood. */
export function runAffiliateDashboardGateway(
  baseUrl: string,
  data: AffiliateListData,
  cases: AffiliateListCase[],
  connections: number,
  durationS: number,
  label: string,
): Promise<DashboardRun> {
  const headers = { authorization: `Bearer ${data.project.keys.readOnly}` };
  const client = keepAliveGet(baseUrl, connections);
  return runCases(
    cases,
    async (one) => {
      const status = await client.get(affiliateListPath(data, one), headers);
      if (status !== 200) throw new Error(`${one.label}: ${status}`);
    },
    connections,
    durationS,
    label,
  ).finally(() => client.close());
}

export function runAffiliateDashboardDirect(
  direct: DirectAffiliateList,
  cases: AffiliateListCase[],
  connections: number,
  durationS: number,
  label: string,
): Promise<DashboardRun> {
  return runCases(cases, (one) => direct.page(one), connections, durationS, label);
}

/** The `count` cases whose slowest request through the gateway took longest, with their median and the direct query's. */
export function slowestCases(gateway: DashboardRun, direct: DashboardRun, count: number): string {
  const stats = (samples: number[] | undefined) => {
    const sorted = [...(samples ?? [])].sort((a, b) => a - b);
    return { n: sorted.length, p50: percentile(sorted, 50), max: sorted[sorted.length - 1] ?? Number.NaN };
  };
  const rows = [...gateway.perCase]
    .map(([label, samples]) => ({ label, ours: stats(samples), direct: stats(direct.perCase.get(label)) }))
    .sort((a, b) => b.ours.max - a.ours.max)
    .slice(0, count);
  return table(
    ['case', 'requests', 'p50', 'max', 'direct p50', 'direct max'],
    rows.map((row) => [row.label, fmt.int(row.ours.n), fmt.ms(row.ours.p50), fmt.ms(row.ours.max), fmt.ms(row.direct.p50), fmt.ms(row.direct.max)]),
  );
}
