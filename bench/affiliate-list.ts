/**
 * Issue 10, section 2: the dashboard's affiliate list (GET /api/v1/projects/:projectId/affiliates)
 * over 100,000 affiliates with metrics, for a mix of filters and sorts (a deep page among them),
 * through the gateway, against the same page query and count sent directly with pg.
 */
import pg from 'pg';
import type { Api } from './api';
import type { BenchConfig } from './config';
import { random } from './data';
import { runHttpLoad, runQueryLoad, type RunFigures } from './load';

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
  page: number;
}

export interface AffiliateListData {
  project: { id: string; keys: { admin: string; readOnly: string } };
  affiliates: number;
  /** The requests of the load, in order (a weighted mix of `cases`). */
  mix: AffiliateListCase[];
  cases: AffiliateListCase[];
}

const REGIONS = ['US', 'DE', 'BR', 'FR', 'GB', 'JP', 'IN', 'NG', 'AR', 'KR'];

/** 100,000 affiliates (scaled) with metrics, per-name counts and earnings, written straight into the agency schema (not measured). */
export async function setUpAffiliateList(api: Api, platformKey: string, db: pg.Client, config: BenchConfig): Promise<AffiliateListData> {
  const { affiliates, pageSize } = config.affiliateList;
  const { body } = await api.call<{ id: string; api_keys: { role: string; key: string }[] }>('POST', '/api/v1/projects', platformKey, { name: 'bench affiliate list' });
  const key = (role: string) => body.api_keys.find((candidate) => candidate.role === role)!.key;
  const project = { id: body.id, keys: { admin: key('admin'), readOnly: key('read_only') } };
  const currencyId = (await db.query<{ id: string }>('SELECT gen_random_uuid() AS id')).rows[0]!.id;
  await db.query('BEGIN');
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
  // Figures skewed like real ones: most affiliates small, a few large; a third with nothing yet.
  await db.query(
    `INSERT INTO agency.affiliate_metrics (affiliate_id, project_id, volume_usd, revenue_usd, conversions, end_users, referred_volume_usd, updated_at)
     SELECT a.id, a.project_id,
            CASE WHEN h % 3 = 0 THEN 0 ELSE round(((h & 1048575)::numeric ^ 2) / 100000, 2) END,
            CASE WHEN h % 3 = 0 THEN 0 ELSE round((h & 65535)::numeric / 100, 2) END,
            CASE WHEN h % 3 = 0 THEN 0 ELSE 1 + (h & 4095) END,
            CASE WHEN h % 3 = 0 THEN 0 ELSE 1 + (h & 511) END,
            CASE WHEN h % 50 = 1 THEN (h & 16777215)::numeric ELSE 0 END,
            now()
     FROM (SELECT id, project_id, abs(hashtext(id::text)) AS h FROM agency.affiliates WHERE project_id = $1) a`,
    [project.id],
  );
  await db.query(
    `INSERT INTO agency.affiliate_conversion_counts (affiliate_id, name, project_id, conversions)
     SELECT m.affiliate_id, n.name, m.project_id, greatest(1, m.conversions / n.share)
     FROM agency.affiliate_metrics m
     JOIN (VALUES ('trade', 1, 1), ('swap', 3, 3), ('signup', 20, 20)) AS n(name, share, every) ON abs(hashtext(m.affiliate_id::text || n.name)) % n.every = 0
     WHERE m.project_id = $1 AND m.conversions > 0`,
    [project.id],
  );
  await db.query("INSERT INTO agency.metric_currencies (id, project_id, chain_id, address, name, decimals) VALUES ($1, $2, 8453, '0x' || repeat('ab', 20), 'USDC', 6)", [
    currencyId,
    project.id,
  ]);
  await db.query(
    `INSERT INTO agency.affiliate_earnings (affiliate_id, kind, currency_id, project_id, amount)
     SELECT affiliate_id, 'affiliate', $2, project_id, conversions * 1000000 FROM agency.affiliate_metrics WHERE project_id = $1 AND conversions > 0`,
    [project.id, currencyId],
  );
  await db.query('COMMIT');
  await db.query('VACUUM (ANALYZE) agency.affiliates, agency.affiliate_metrics, agency.affiliate_conversion_counts, agency.affiliate_earnings, agency.metric_currencies');
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
    [listCase(`volume, deep page ${Math.floor(lastPage / 2)}`, { sortBy: 'volume_usd', order: 'desc', page: Math.max(1, Math.floor(lastPage / 2)) }, pageSize), 5],
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
  return { project, affiliates, mix, cases: cases.map(([one]) => one) };
}

function listCase(label: string, fields: Omit<AffiliateListCase, 'label' | 'query'>, pageSize: number): AffiliateListCase {
  const params = new URLSearchParams({ sort_by: fields.sortBy, order: fields.order, page: String(fields.page), page_size: String(pageSize) });
  if (fields.status) params.set('status', fields.status);
  if (fields.region) params.set('region', fields.region);
  if (fields.conversions) params.set('conversions', fields.conversions.join(','));
  if (fields.q) params.set('q', fields.q);
  return { label, query: params.toString(), ...fields };
}

export const affiliateListPath = (data: AffiliateListData, one: AffiliateListCase) => `/api/v1/projects/${data.project.id}/affiliates?${one.query}`;

/** The repository's page query and its count (AffiliateRepository.list), as SQL sent with pg. */
export function affiliateListSql(one: AffiliateListCase, pageSize: number): { page: string; count: string; values: unknown[]; countValues: unknown[] } {
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
  const onAffiliates = where.length > 1;
  const names = one.conversions ? param(one.conversions) : undefined;
  const exists = (id: string) => `EXISTS (SELECT 1 FROM affiliate_conversion_counts cc WHERE cc.affiliate_id = ${id} AND cc.project_id = ${project} AND cc.name = ANY(${names}))`;
  if (names) where.push(exists('a.id'));
  const filterValues = [...values];
  const order = one.order.toUpperCase();
  const metricOrder = `ORDER BY m.${one.sortBy} ${order}, m.affiliate_id ${order}`;
  // As the repository does: a metric's page without filters on the affiliates' columns reads affiliate_metrics alone.
  const page =
    one.sortBy === 'joined_at'
      ? `SELECT a.id FROM affiliates a WHERE ${where.join(' AND ')} ORDER BY a.joined_at ${order}, a.id ${order}`
      : onAffiliates
        ? `SELECT a.id FROM affiliates a JOIN affiliate_metrics m ON m.affiliate_id = a.id WHERE ${where.join(' AND ')} AND m.project_id = ${project} ${metricOrder}`
        : `SELECT m.affiliate_id AS id FROM affiliate_metrics m WHERE m.project_id = ${project}${names ? ` AND ${exists('m.affiliate_id')}` : ''} ${metricOrder}`;
  // As the repository does: with no filter but the status, the count kept per status (affiliate_counts).
  const onlyStatus = !one.region && !one.q && !one.conversions;
  const count = onlyStatus
    ? `SELECT coalesce(sum(affiliates), 0) AS total FROM affiliate_counts WHERE project_id = ${project}${one.status ? ` AND status = $2` : ''}`
    : `SELECT count(*) AS total FROM affiliates a WHERE ${where.join(' AND ')}`;
  return {
    page: `${page} LIMIT ${param(pageSize)} OFFSET ${param((one.page - 1) * pageSize)}`,
    count,
    values,
    countValues: filterValues,
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
  const statements = (one: AffiliateListCase) => {
    const sql = affiliateListSql(one, pageSize);
    return { ...sql, values: [data.project.id, ...sql.values.slice(1)], countValues: [data.project.id, ...sql.countValues.slice(1)] };
  };
  return {
    page: async (one) => {
      const sql = statements(one);
      const [rows, count] = await Promise.all([pool.query<{ id: string }>(sql.page, sql.values), pool.query<{ total: string }>(sql.count, sql.countValues)]);
      return { ids: rows.rows.map((row) => row.id), total: Number(count.rows[0]!.total) };
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
export async function crossCheckAffiliateList(api: Api, data: AffiliateListData, direct: DirectAffiliateList): Promise<string> {
  for (const one of data.cases) {
    const { body } = await api.call<{ results: Array<{ id: string }>; total_results: number }>('GET', affiliateListPath(data, one), data.project.keys.readOnly);
    const viaSql = await direct.page(one);
    if (body.results.map((item) => item.id).join(',') !== viaSql.ids.join(',') || body.total_results !== viaSql.total) {
      throw new Error(`affiliate list (${one.label}): the gateway and the direct query disagree`);
    }
  }
  return `all ${data.cases.length} cases agree (ids in order, total_results)`;
}

export function runAffiliateListGateway(baseUrl: string, data: AffiliateListData, connections: number, durationS: number, label: string): Promise<RunFigures> {
  let next = 0;
  return runHttpLoad(baseUrl, data.project.keys.readOnly, () => affiliateListPath(data, data.mix[next++ % data.mix.length]!), connections, durationS, label);
}

export function runAffiliateListDirect(direct: DirectAffiliateList, data: AffiliateListData, connections: number, durationS: number, label: string): Promise<RunFigures> {
  return runQueryLoad((n) => direct.page(data.mix[n % data.mix.length]!), connections, durationS, label);
}
