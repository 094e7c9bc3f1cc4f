/**
 * The claim-check list of a user with 10,000 movements: GET /api/v1/claim-checks
 * through the gateway with autocannon, beside the repository's own SQL (the page with its count,
 * as ClaimCheckRepository.list sends it) straight to PostgreSQL with pg, at the same concurrency.
 * The data goes in through the API: conversions in batches, paid by the claim service's job, and
 * the user's open check closed after each batch but the last, so the list holds many checks.
 */
import pg from 'pg';
import { type Api, createProject, type Project } from './api';
import type { BenchConfig } from './config';
import { address } from './data';
import { type RunFigures, runHttpLoad, runQueryLoad } from './load';

export interface ClaimListData {
  project: Project;
  user: string;
  movements: number;
  checks: number;
  path: string;
}

const USER = address('claim-list-user', 0);

/**
 * The page the endpoint answers (25 newest checks of the user) with its count, as the repository writes
 * it (ClaimCheckRepository.list; the currencies of the rows come from its memo, not from this statement).
 */
export const CLAIM_LIST_SQL = `SELECT cc.id, cc.reason, cc.amount, cc.status, cc.created_at, cc.currency_id,
       (SELECT v.deadline FROM vouchers v WHERE v.claim_check_id = cc.id) AS deadline, count(*) OVER () AS total
FROM claim_checks cc
WHERE cc.project_id = $1 AND cc.identifier = $2 AND cc.identifier_type = $3 AND cc.status IN ('open', 'closed', 'claimed')
ORDER BY cc.created_at DESC, cc.id DESC
LIMIT 25 OFFSET 0`;

export async function setUpClaimListData(
  api: Api,
  platformKey: string,
  db: pg.Client,
  chainId: number,
  config: BenchConfig,
  log: (line: string) => void,
): Promise<ClaimListData> {
  const project = await createProject(api, platformKey, 'bench claim checks');
  const { body: currency } = await api.call<{ id: string }>('POST', `/api/v1/projects/${project.id}/currencies`, project.keys.admin, {
    chain_id: chainId,
    address: address('claim-list-token', 0),
    name: 'USDC',
    decimals: 6,
    type: 'erc20',
  });
  await api.call('PUT', `/api/v1/projects/${project.id}/payout-terms/trade`, project.keys.admin, {
    currency_id: currency.id,
    end_user: { bps: 100 },
  });
  await api.call('PUT', `/api/v1/projects/${project.id}/claim-settings`, project.keys.admin, { project_address: address('claim-list-project', 0) });

  const { movements, rounds } = config.claimList;
  const perRound = Math.ceil(movements / rounds);
  let paid = 0;
  for (let round = 0; round < rounds && paid < movements; round += 1) {
    const count = Math.min(perRound, movements - paid);
    // Each batch also pays as many other users, so the user is one of many in the tables.
    const conversions = Array.from({ length: count }, (_, i) => [
      { id: `claim-list-${round}-${i}`, name: 'trade', user: { identifier: USER, identifier_type: 'evm_address' }, reward_base: String(10_000 + i) },
      {
        id: `claim-list-other-${round}-${i}`,
        name: 'trade',
        user: { identifier: address('claim-list-other', round * perRound + i), identifier_type: 'evm_address' },
        reward_base: '10000',
      },
    ]).flat();
    for (let start = 0; start < conversions.length; start += 1_000) {
      await api.call('POST', '/api/v1/conversions/batch', project.keys.service, { conversions: conversions.slice(start, start + 1_000) });
    }
    paid += count;
    await waitUntilPaid(db, project.id, paid * 2);
    if (round < rounds - 1) {
      const { body: open } = await api.call<{ results: { id: string }[] }>(
        'GET',
        `/api/v1/claim-checks?user_identifier=${USER}&user_identifier_type=evm_address&status=open`,
        project.keys.service,
      );
      await api.call('POST', '/api/v1/claim-checks/close', project.keys.service, {
        userIdentifier: USER,
        userIdentifierType: 'evm_address',
        claim_check_ids: open.results.map((check) => check.id),
      });
    }
    if ((round + 1) % 5 === 0) log(`claim list: ${paid} of ${movements} movements of the user paid`);
  }
  await db.query('VACUUM (ANALYZE) claim.claim_checks, claim.movements, claim.vouchers, claim.currencies');
  const { rows } = await db.query<{ movements: string; checks: string }>(
    `SELECT (SELECT count(*) FROM claim.movements WHERE project_id = $1 AND identifier = $2) AS movements,
            (SELECT count(*) FROM claim.claim_checks WHERE project_id = $1 AND identifier = $2) AS checks`,
    [project.id, USER],
  );
  return {
    project,
    user: USER,
    movements: Number(rows[0]!.movements),
    checks: Number(rows[0]!.checks),
    path: `/api/v1/claim-checks?user_identifier=${USER}&user_identifier_type=evm_address`,
  };
}

async function waitUntilPaid(db: pg.Client, projectId: string, expected: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { rows } = await db.query<{ n: string }>("SELECT count(*) AS n FROM claim.conversions WHERE project_id = $1 AND status = 'processed'", [
      projectId,
    ]);
    if (Number(rows[0]!.n) >= expected) return;
    if (Date.now() > deadline) throw new Error(`claim list: ${rows[0]!.n} of ${expected} conversions paid after 2 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The list through the gateway, at `connections` for `durationS`. */
export function runClaimListGateway(
  baseUrl: string,
  data: ClaimListData,
  connections: number,
  durationS: number,
  label: string,
): Promise<RunFigures> {
  return runHttpLoad(baseUrl, data.project.keys.service, () => data.path, connections, durationS, label);
}

export interface DirectClaimList {
  pool: pg.Pool;
  close(): Promise<void>;
}

/** The pool of the direct runs; it is closed after the measured run, so its backends count in the CPU table. */
export function openClaimListDirect(databaseUrl: string, connections: number): DirectClaimList {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: connections,
    application_name: 'bench-claim-list',
    options: '-c search_path=claim',
  });
  // Idle connections end with the database at clean-up: not an error of the benchmark.
  pool.on('error', () => undefined);
  return { pool, close: () => pool.end() };
}

/** The same page with its count, straight to PostgreSQL: one query per request, as the repository sends it. */
export function runClaimListDirect(
  direct: DirectClaimList,
  data: ClaimListData,
  connections: number,
  durationS: number,
  label: string,
): Promise<RunFigures> {
  const values = [data.project.id, data.user, 'evm_address'];
  return runQueryLoad(
    async () => {
      const page = await direct.pool.query(CLAIM_LIST_SQL, values);
      if (page.rows.length === 0) throw new Error('the direct query found no checks');
    },
    connections,
    durationS,
    label,
  );
}

/** Before the load: the gateway answers the checks the direct query finds. */
export async function crossCheckClaimList(api: Api, databaseUrl: string, data: ClaimListData): Promise<string> {
  const { body } = await api.call<{ results: { id: string }[]; total_results: number }>('GET', data.path, data.project.keys.service);
  const client = new pg.Client({ connectionString: databaseUrl, options: '-c search_path=claim' });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>(CLAIM_LIST_SQL, [data.project.id, data.user, 'evm_address']);
    const viaGateway = body.results.map((check) => check.id).join(',');
    if (viaGateway !== rows.map((row) => row.id).join(',')) throw new Error('the gateway and the direct query list different checks');
    const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${CLAIM_LIST_SQL}`, [
      data.project.id,
      data.user,
      'evm_address',
    ]);
    return `${body.total_results} checks listed the same way by both\n${CLAIM_LIST_SQL}\n${plan.rows.map((row) => row['QUERY PLAN']).join('\n')}`;
  } finally {
    await client.end();
  }
}
