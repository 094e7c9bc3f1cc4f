/**
 * The claim service's money path:
 *
 * - conversions: N conversions through POST /api/v1/conversions/batch (1,000 per request, a few in
 *   flight) until the job has paid every one (attribution from the agency service, movements, claim
 *   checks, leaderboard totals, events); beside it the physical limit, the same movement rows
 *   written with one INSERT ... SELECT into an identical table.
 * - leaderboard: the payouts board's data (1,000,000 movements) and its benchmark (boards.ts runs it:
 *   pages through the gateway beside LeaderboardRepository's statement sent with pg).
 */
import pg from 'pg';
import type { Api, Project } from './api';
import type { BenchConfig } from './config';
import { address, random } from './data';
import { fmt } from './report';
import { type BoardBench, PAGE_MIX_CHECKED, pageMix, statementsByPage } from './boards';
import { repositoryStatement } from './repository-statement';
import { LeaderboardRepository } from '../services/claim/repositories/leaderboard.repository';
import type { ClaimDatabase } from '../services/claim/database';

const MAX_BATCH = 1_000;

interface ClaimProject extends Project {
  currency: { id: string; address: string };
}

/** A project (through the gateway) with its keys. */
async function benchProject(api: Api, platformKey: string, name: string): Promise<Project & { keys: { readOnly: string } }> {
  const { body } = await api.call<{ id: string; api_keys: { role: string; key: string }[] }>('POST', '/api/v1/projects', platformKey, { name });
  const key = (role: string) => body.api_keys.find((candidate) => candidate.role === role)!.key;
  return { id: body.id, keys: { admin: key('admin'), service: key('service_role'), readOnly: key('read_only') } };
}

export async function payingProject(api: Api, platformKey: string, name: string): Promise<ClaimProject> {
  const project = await benchProject(api, platformKey, name);
  const currency = await api.call<{ id: string; address: string }>('POST', `/api/v1/projects/${project.id}/currencies`, project.keys.admin, {
    chain_id: 8453,
    address: address(`${name}-currency`, 0),
    name: 'USDC',
    decimals: 6,
    type: 'erc20',
  });
  return { ...project, currency: currency.body };
}

/** Runs `work` over `items` with `concurrency` calls in flight. */
async function inParallel<T>(items: T[], concurrency: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/**
 * `affiliates` affiliates with a code each, and about `referredShare` of `users` users referred by
 * them, through the gateway (set-up, not measured). Addresses come from `namespace`. Answers the
 * indices of the referred users.
 */
export async function referralProgram(
  api: Api,
  project: Project,
  { affiliates, users, referredShare, namespace }: { affiliates: number; users: number; referredShare: number; namespace: string },
): Promise<number[]> {
  const codes = Array.from({ length: affiliates }, (_, index) => `benchaff${index}`);
  // Few in flight: set-up is not measured, and on a loaded machine 16 at once outlast the gateway's deadline.
  await inParallel([...codes.keys()], 4, (index) =>
    api.call('POST', `/api/v1/projects/${project.id}/affiliates`, project.keys.admin, {
      identifier: address(`${namespace}-affiliate`, index),
      identifier_type: 'evm_address',
      name: codes[index],
      code: codes[index],
    }),
  );
  const rng = random(9);
  const referred = Array.from({ length: users }, (_, index) => index).filter(() => rng() < referredShare);
  await inParallel(referred, 32, (index) =>
    api.call('POST', '/api/v1/referrals', project.keys.service, {
      user_identifier: address(`${namespace}-user`, index),
      user_identifier_type: 'evm_address',
      code: codes[index % affiliates],
    }),
  );
  return referred;
}

/** `total` `trade` conversions (ids `<idPrefix>-<n>`) of `users` users, as bodies of POST /api/v1/conversions/batch of 1,000. */
export function conversionBatchBodies({
  total,
  users,
  namespace,
  idPrefix,
}: {
  total: number;
  users: number;
  namespace: string;
  idPrefix: string;
}): string[] {
  const bodies: string[] = [];
  for (let start = 0; start < total; start += MAX_BATCH) {
    const conversions = [];
    for (let n = start; n < Math.min(total, start + MAX_BATCH); n += 1) {
      conversions.push({
        id: `${idPrefix}-${n}`,
        name: 'trade',
        user: { identifier: address(`${namespace}-user`, n % users), identifier_type: 'evm_address' },
        volume_usd: `${(n % 5_000) + 1}.25`,
        reward_base: String(1_000_000 + ((n * 7_919) % 9_000_000)),
      });
    }
    bodies.push(JSON.stringify({ conversions }));
  }
  return bodies;
}

/**
 * Sends bodies of POST /api/v1/conversions/batch, `inflight` at a time, until the job has paid every
 * batch of the project. Answers the seconds until then, when the last request was accepted, and how
 * many requests were sent again after a 504.
 */
export async function sendBatchesUntilPaid(
  api: Api,
  db: pg.Client,
  project: Project,
  bodies: string[],
  inflight: number,
): Promise<{ seconds: number; submittedAfterSeconds: number; retried: number }> {
  // Cheap to ask while the stream runs (the batches not finished yet, from their partial index);
  // the conversions themselves are counted once, afterwards.
  const unfinished = async () =>
    (
      await db.query<{ n: number }>('SELECT count(*)::int AS n FROM claim.conversion_batches WHERE finished_at IS NULL AND project_id = $1', [
        project.id,
      ])
    ).rows[0]!.n;
  let retried = 0;
  const started = performance.now();
  let lastSubmitted = started;
  await inParallel(bodies, inflight, async (body) => {
    // A 504 leaves the batch's fate unknown; sending the same body again is safe (ids deduplicate:
    // 200 when the first attempt had stored everything), as a client would do.
    for (let attempt = 1; ; attempt += 1) {
      const { status } = await api.call('POST', '/api/v1/conversions/batch', project.keys.service, body, attempt < 3 ? [200, 202, 504] : [200, 202]);
      if (status !== 504) break;
      retried += 1;
    }
    lastSubmitted = performance.now();
  });
  while ((await unfinished()) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  const finished = performance.now();
  return { seconds: (finished - started) / 1000, submittedAfterSeconds: (lastSubmitted - started) / 1000, retried };
}

// ------------------------------------------------------------------ conversions

export interface ConversionsResult {
  conversions: number;
  batches: number;
  inflight: number;
  affiliates: number;
  users: number;
  referred: number;
  oursSeconds: number;
  submittedAfterSeconds: number;
  limitSeconds: number;
  movements: number;
  limitRows: number;
  byStatus: Record<string, number>;
  events: number;
  unfinishedBatches: number;
  /** From the last payment until the stack was idle again. */
  downstreamSeconds: number;
  downstreamIdle: boolean;
}

/** What the claim phases (conversions, reversals) are given by the run. */
export interface ClaimPhaseOptions {
  api: Api;
  platformKey: string;
  db: pg.Client;
  config: BenchConfig;
  log: (line: string) => void;
  around: <T>(phase: string, work: () => Promise<T>, options?: { settleFirst?: boolean }) => Promise<T>;
  /** Resolves once the stack is idle again (its consumers have caught up with the events). */
  settle: () => Promise<{ seconds: number; idle: boolean }>;
}

export async function runConversions(options: ClaimPhaseOptions): Promise<ConversionsResult> {
  const { api, db, config, log } = options;
  const { conversions: total, inflight, affiliates, users, referredShare } = config.conversions;
  const project = await payingProject(api, options.platformKey, 'bench conversions');
  await api.call('PUT', `/api/v1/projects/${project.id}/payout-terms/trade`, project.keys.admin, {
    currency_id: project.currency.id,
    end_user: { bps: 50 },
    affiliate: { bps: 1_000 },
  });

  log(
    `conversions: setting up ${affiliates} affiliates and ${Math.round(users * referredShare)} referred users of ${users} (through the gateway, not measured)`,
  );
  const referred = await referralProgram(api, project, { affiliates, users, referredShare, namespace: 'conv' });
  const bodies = conversionBatchBodies({ total, users, namespace: 'conv', idPrefix: 'bench' });

  log(`conversions: ${total} conversions in ${bodies.length} requests, ${inflight} in flight, until all are paid`);
  const ours = await options.around('conversions (gateway)', () => sendBatchesUntilPaid(api, db, project, bodies, inflight));
  const { retried } = ours;
  if (retried > 0) log(`conversions: ${retried} batch requests answered 504 (the machine is loaded) and were sent again`);

  const byStatus = Object.fromEntries(
    (
      await db.query<{ status: string; n: number }>(
        'SELECT status, count(*)::int AS n FROM claim.conversions WHERE project_id = $1 GROUP BY status',
        [project.id],
      )
    ).rows.map((row) => [row.status, row.n]),
  );
  const counts = (
    await db.query<{ movements: number; events: number; unfinished: number }>(
      `SELECT (SELECT count(*)::int FROM claim.movements WHERE project_id = $1) AS movements,
              (SELECT count(*)::int FROM claim.outbox WHERE project_id = $1) AS events,
              (SELECT count(*)::int FROM claim.conversion_batches WHERE project_id = $1 AND finished_at IS NULL) AS unfinished`,
      [project.id],
    )
  ).rows[0]!;

  // The consumers of the events (audience inputs, agency metrics, webhooks) run on after the last
  // payment: measured apart, and the limit below waits for them, so that it has the machine to itself.
  const downstream = await options.around('conversions (downstream catch-up)', options.settle, { settleFirst: false });
  log(`conversions: the stack was idle ${fmt.s(downstream.seconds)} after the last payment${downstream.idle ? '' : ' (not idle: gave up waiting)'}`);

  // The physical limit: the same rows, one INSERT ... SELECT, into a table with the ledger's columns,
  // keys, checks, indexes and foreign keys.
  await db.query('DROP TABLE IF EXISTS claim.bench_movements');
  await db.query('CREATE TABLE claim.bench_movements (LIKE claim.movements INCLUDING ALL)');
  await db.query(`ALTER TABLE claim.bench_movements
    ADD FOREIGN KEY (project_id, conversion_id) REFERENCES claim.conversions (project_id, id),
    ADD FOREIGN KEY (project_id, currency_id) REFERENCES claim.currencies (project_id, id),
    ADD FOREIGN KEY (claim_check_id) REFERENCES claim.claim_checks (id)`);
  await db.query('CHECKPOINT');
  const limit = await options.around('conversions (INSERT ... SELECT)', async () => {
    const started = performance.now();
    const inserted = await db.query(
      `INSERT INTO claim.bench_movements (project_id, conversion_id, kind, identifier_type, identifier, currency_id, amount, claim_check_id, status, available_at, created_at)
       SELECT project_id, conversion_id, kind, identifier_type, identifier, currency_id, amount, claim_check_id, status, available_at, created_at FROM claim.movements WHERE project_id = $1`,
      [project.id],
    );
    return { seconds: (performance.now() - started) / 1000, rows: inserted.rowCount ?? 0 };
  });
  await db.query('DROP TABLE claim.bench_movements');

  return {
    conversions: total,
    batches: bodies.length,
    inflight,
    affiliates,
    users,
    referred: referred.length,
    oursSeconds: ours.seconds,
    downstreamSeconds: downstream.seconds,
    downstreamIdle: downstream.idle,
    submittedAfterSeconds: ours.submittedAfterSeconds,
    limitSeconds: limit.seconds,
    movements: counts.movements,
    limitRows: limit.rows,
    byStatus,
    events: counts.events,
    unfinishedBatches: counts.unfinished,
  };
}

// ------------------------------------------------------------------ leaderboard

export interface LeaderboardData {
  project: ClaimProject & { keys: { readOnly: string } };
  movements: number;
  entries: number;
  /** Pages the load asks for, in order. */
  pages: number[];
}

/** The days the seeded movements are spread over (written on today and the days before it). */
const LEADERBOARD_DAYS = 30;

/**
 * A board of `affiliates` earners over `movements` affiliate payouts, written straight into the claim schema (not
 * measured): the payouts board in a token (the movements in the earners' open claim checks), or with `points` the
 * points board (docs/claims.md#points: the movements in no check, credited to the earners' points balances instead).
 */
export async function setUpLeaderboard(api: Api, platformKey: string, db: pg.Client, config: BenchConfig, points = false): Promise<LeaderboardData> {
  const { movements, affiliates, pageSize } = config.leaderboard;
  const project = points
    ? await pointsProject(api, platformKey)
    : ((await payingProject(api, platformKey, 'bench leaderboard')) as LeaderboardData['project']);
  const batchId = (await db.query<{ id: string }>('SELECT gen_random_uuid() AS id')).rows[0]!.id;
  // Affiliate a's address: 0x + 40 hex digits of md5s (spread like real addresses).
  const affiliate = (n: string) => `'0x' || substr(md5('lb-aff-' || ${n}) || md5('lb-aff2-' || ${n}), 1, 40)`;
  await db.query('BEGIN');
  await db.query('INSERT INTO claim.conversion_batches (id, project_id, received, created_at, finished_at) VALUES ($1, $2, $3, now(), now())', [
    batchId,
    project.id,
    movements,
  ]);
  await db.query(
    `INSERT INTO claim.conversions (project_id, id, batch_id, request_hash, name, identifier_type, identifier, occurred_at, received_at, reward_base, status, processed_at, currency_id,
                                    affiliate_id, affiliate_identifier_type, affiliate_identifier)
     SELECT $1, 'lb-' || g, $2, '\\x00'::bytea, 'trade', 'evm_address', '0x' || substr(md5('lb-user-' || g) || md5('lb-user2-' || g), 1, 40), now(), now(), 1000, 'processed', now(), $3,
            'aff-' || (g % $5), 'evm_address', ${affiliate('(g % $5)')}
     FROM generate_series(1, $4::int) g`,
    [project.id, batchId, project.currency.id, movements, affiliates],
  );
  if (points) await seedPointMovements(db, project.id);
  else await seedCheckedMovements(db, project, affiliate, affiliates);
  // What the job's running totals add up to for these movements.
  await db.query(
    `INSERT INTO claim.leaderboard_totals (project_id, currency_id, user_type, identifier_type, identifier, total_amount, total_attributions, updated_at)
     SELECT project_id, currency_id, 'affiliate', identifier_type, identifier, sum(amount), count(*), now() FROM claim.movements WHERE project_id = $1 GROUP BY 1, 2, 4, 5`,
    [project.id],
  );
  await db.query(
    `INSERT INTO claim.leaderboard_sizes (project_id, currency_id, user_type, entries)
     SELECT project_id, currency_id, user_type, count(*) FROM claim.leaderboard_totals WHERE project_id = $1 GROUP BY 1, 2, 3`,
    [project.id],
  );
  // And the per-day totals (0015) the range boards sum, the movements spread over LEADERBOARD_DAYS days.
  await db.query(
    `INSERT INTO claim.leaderboard_days (project_id, currency_id, user_type, day, identifier_type, identifier, total_amount, total_attributions)
     SELECT project_id, currency_id, 'affiliate', (created_at AT TIME ZONE 'UTC')::date, identifier_type, identifier, sum(amount), count(*)
     FROM claim.movements WHERE project_id = $1 GROUP BY 1, 2, 4, 5, 6`,
    [project.id],
  );
  await db.query('COMMIT');
  await db.query(
    'VACUUM (ANALYZE) claim.conversions, claim.claim_checks, claim.point_balances, claim.movements, claim.leaderboard_totals, claim.leaderboard_sizes, claim.leaderboard_days, claim.currencies',
  );
  await db.query('CHECKPOINT');

  const pages = pageMix(affiliates, pageSize, config.leaderboard.topShare, 11);
  const total = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM claim.movements WHERE project_id = $1', [project.id])).rows[0]!.n;
  return { project, movements: total, entries: affiliates, pages };
}

/** A project paying in points: its one point currency (docs/claims.md#points), which has no address (the board names none). */
async function pointsProject(api: Api, platformKey: string): Promise<LeaderboardData['project']> {
  const project = await benchProject(api, platformKey, 'bench points leaderboard');
  const currency = await api.call<{ id: string }>('POST', `/api/v1/projects/${project.id}/currencies`, project.keys.admin, {
    name: 'XP',
    decimals: 0,
    type: 'point',
  });
  return { ...project, currency: { id: currency.body.id, address: '' } };
}

/** The day a seeded conversion's movement was written: spread over the LEADERBOARD_DAYS days up to today. */
const MOVEMENT_DAY = `now() - make_interval(days => (hashtext('day-' || c.id) & 2147483647) % ${LEADERBOARD_DAYS})`;

/** A payout per seeded conversion, in its affiliate's open claim check (one per affiliate), and the checks' sums. */
async function seedCheckedMovements(db: pg.Client, project: ClaimProject, affiliate: (n: string) => string, affiliates: number): Promise<void> {
  await db.query(
    `INSERT INTO claim.claim_checks (project_id, identifier_type, identifier, currency_id, reason, status, amount, movements_count, created_at, updated_at)
     SELECT $1, 'evm_address', ${affiliate('a')}, $2, 'affiliate', 'open', 0, 0, now(), now() FROM generate_series(0, $3::int - 1) a`,
    [project.id, project.currency.id, affiliates],
  );
  // Statistics of the fresh rows, so the join below is planned as the large join it is.
  await db.query('ANALYZE claim.conversions, claim.claim_checks');
  await db.query(
    `INSERT INTO claim.movements (project_id, conversion_id, kind, identifier_type, identifier, currency_id, amount, claim_check_id, created_at, available_at)
     SELECT c.project_id, c.id, 'affiliate_payout', 'evm_address', c.affiliate_identifier, c.currency_id, 1 + (hashtext(c.id) & 65535), cc.id, d.at, d.at
     FROM claim.conversions c
     -- Available when written (no hold), as every new movement must say (0010).
     CROSS JOIN LATERAL (SELECT ${MOVEMENT_DAY} AS at) d
     JOIN claim.claim_checks cc ON cc.project_id = c.project_id AND cc.identifier = c.affiliate_identifier AND cc.identifier_type = 'evm_address'
       AND cc.currency_id = c.currency_id AND cc.reason = 'affiliate' AND cc.status = 'open'
     WHERE c.project_id = $1`,
    [project.id],
  );
  await db.query(
    `UPDATE claim.claim_checks cc SET amount = m.total, movements_count = m.n
     FROM (SELECT claim_check_id, sum(amount) AS total, count(*) AS n FROM claim.movements WHERE project_id = $1 GROUP BY 1) m WHERE cc.id = m.claim_check_id`,
    [project.id],
  );
}

/** A point payout per seeded conversion, available and in no check (0019's trigger asks exactly that of points), and the balances they credit. */
async function seedPointMovements(db: pg.Client, projectId: string): Promise<void> {
  await db.query(
    `INSERT INTO claim.movements (project_id, conversion_id, kind, identifier_type, identifier, currency_id, amount, claim_check_id, created_at, available_at)
     SELECT c.project_id, c.id, 'affiliate_payout', 'evm_address', c.affiliate_identifier, c.currency_id, 1 + (hashtext(c.id) & 65535), NULL, d.at, d.at
     FROM claim.conversions c
     CROSS JOIN LATERAL (SELECT ${MOVEMENT_DAY} AS at) d
     WHERE c.project_id = $1`,
    [projectId],
  );
  await db.query(
    `INSERT INTO claim.point_balances (project_id, currency_id, identifier_type, identifier, balance, credited, taken_back, updated_at)
     SELECT project_id, currency_id, identifier_type, identifier, sum(amount), sum(amount), 0, now() FROM claim.movements WHERE project_id = $1 GROUP BY 1, 2, 3, 4`,
    [projectId],
  );
}

/** A range of UTC days of a board (the `leaderboard-range` phase): its `from` and `to`. */
export interface LeaderboardRange {
  from: string;
  to: string;
}

/** The range the `leaderboard-range` phase reads: a week of the seeded month, from 13 to 7 days ago. */
export function benchLeaderboardRange(now = new Date()): LeaderboardRange {
  const day = (back: number) => new Date(now.getTime() - back * 86_400_000).toISOString().slice(0, 10);
  return { from: day(13), to: day(7) };
}

/**
 * The payouts board all time (`leaderboard`) or over `range` (`leaderboard-range`): pages of the
 * affiliates' board in the seeded currency, each beside the statement LeaderboardRepository sends for
 * it (`page`, or `rangePage` over the per-day totals).
 */
export async function payoutsBoardBench(data: LeaderboardData, pageSize: number, range?: LeaderboardRange): Promise<BoardBench> {
  const board = { projectId: data.project.id, currencyId: data.project.currency.id, userType: 'affiliate' as const };
  const days = range ? `&from=${range.from}&to=${range.to}` : '';
  const statement = await statementsByPage(data.pages, (page) =>
    repositoryStatement<ClaimDatabase>((db) => {
      const repository = new LeaderboardRepository(db);
      const asked = { page, pageSize, offset: (page - 1) * pageSize };
      return range ? repository.rangePage(board, range, asked) : repository.page(board, asked);
    }),
  );
  return {
    phase: range ? 'leaderboard-range' : 'leaderboard',
    title: range
      ? `leaderboard-range: GET /api/v1/payouts/leaderboard/payouts?from=${range.from}&to=${range.to} (a week of the per-day totals, summed per user)`
      : 'leaderboard: GET /api/v1/payouts/leaderboard/payouts',
    describe: `${data.movements.toLocaleString('en-US')} affiliate payouts to ${data.entries.toLocaleString('en-US')} affiliates over 30 days; pages of ${pageSize}, mostly the first ten, the rest anywhere in the board`,
    key: data.project.keys.readOnly,
    schema: 'claim',
    path: (n) =>
      `/api/v1/payouts/leaderboard/payouts?currency_address=${data.project.currency.address}&user_type=affiliate&page=${data.pages[n % data.pages.length]}&page_size=${pageSize}${days}`,
    statement,
    fromGateway: (body) =>
      (body as { results: Array<{ user_identifier: string; total_amount_base_units: string }> }).results
        .map((entry) => `${entry.user_identifier}:${entry.total_amount_base_units}`)
        .join(','),
    // An empty page comes back as one row of the board's size beside nulls: not an entry.
    fromSql: (rows) =>
      rows
        .filter((row) => row.identifier !== null)
        .map((row) => `${String(row.identifier)}:${String(row.total_amount)}`)
        .join(','),
    checked: PAGE_MIX_CHECKED,
    p99Goal: !range,
  };
}

/**
 * The points board (`leaderboard-points`, GET /api/v1/payouts/leaderboard/points, issue 25 §1): the point currency's
 * payouts board, seeded as the payouts board is (1,000,000 point payouts to 50,000 affiliates, scaled) and measured
 * the same way, each page beside the statement LeaderboardRepository.page sends for the point currency.
 */
export async function pointsBoardBench({
  api,
  platformKey,
  db,
  config,
}: {
  api: Api;
  platformKey: string;
  db: pg.Client;
  config: BenchConfig;
}): Promise<BoardBench> {
  const { pageSize } = config.leaderboard;
  const data = await setUpLeaderboard(api, platformKey, db, config, true);
  // The payouts board's benchmark of this data is the points board's but for the route: the same repository
  // statement (page, in the project's point currency), the same pages, the same cross-check.
  const payouts = await payoutsBoardBench(data, pageSize);
  return {
    ...payouts,
    phase: 'leaderboard-points',
    title: 'leaderboard-points: GET /api/v1/payouts/leaderboard/points',
    describe: `${data.movements.toLocaleString('en-US')} point payouts to ${data.entries.toLocaleString('en-US')} affiliates over 30 days; pages of ${pageSize}, mostly the first ten, the rest anywhere in the board`,
    path: (n) => `/api/v1/payouts/leaderboard/points?user_type=affiliate&page=${data.pages[n % data.pages.length]}&page_size=${pageSize}`,
    p99Goal: false,
  };
}
