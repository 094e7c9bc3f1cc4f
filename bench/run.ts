/**
 * `npm run bench`: the real stack, started as `npm start` runs it, measured
 * against its physical limit in the same run.
 *
 *   1. Batch ingest through the gateway vs. COPY of the same rows into an identical table.
 *   2. getUserAudiences through the gateway (autocannon) vs. the repository's SQL sent with pg.
 *   3. BatchResolveAttribution over gRPC (batches of 100 at 50 concurrent calls,
 *      100,000 affiliates, 1,000,000 referred users) vs. the same statement sent with pg.
 *   4. The affiliate list: 100,000 affiliates with metrics, a mix of filters and
 *      sorts (a deep page among them) through the gateway vs. the page query and its count sent with pg.
 *   5. Dynamic audiences: a full evaluation over 1,000,000 users vs. one hand-written
 *      INSERT ... SELECT of the same rows, and the time from a trait pushed to the user's entry.
 *   6. Reversals: paid conversions each reversed through POST /api/v1/conversions/:id/reverse at 50 in
 *      flight vs. one INSERT ... SELECT of the same reversal rows; the books checked afterwards.
 *   7. Tracking events: POST /api/v1/events in batches over 50 connections vs. COPY of the same rows
 *      into a fresh table like tracking_events.
 *   8. Every leaderboard (the payouts board all time and over a range of days, the agency's volume, revenue,
 *      referred-users boards and referred volumes): pages through the gateway vs. the statement its repository
 *      sends for the same request (recorded from the repository's code), sent with pg at the same concurrency.
 *   9. Peak RSS of every process of the stack, sampled through the whole run.
 *
 * Environment: BENCH_SCALE (default 1) shrinks the data sets; BENCH_DURATION_S (default 20) the
 * lookup runs; BENCH_WARMUP_S (3); BENCH_PHASES (ingest,lookup,attribution,conversions,reversals,events,leaderboard,leaderboard-range,leaderboard-points, the agency's boards leaderboard-volume,leaderboard-revenue,leaderboard-referred-users,leaderboard-referred-volume,leaderboard-volume-end-users,leaderboard-revenue-end-users, claim-list,affiliate-list,affiliate-list-browser,audience-evaluation); BENCH_EVENTS (1,000,000 × BENCH_SCALE) and BENCH_EVENTS_BATCH (1,000) size the events; BENCH_TRAIT_SAMPLES (200); BENCH_CONVERSION_INFLIGHT (4); BENCH_REVERSALS (10,000 × BENCH_SCALE) sizes the reversals; BENCH_ATTRIBUTION_CONCURRENCY (50); BENCH_COPY_STREAMS (1) splits the
 * COPY of the physical limit over concurrent streams; BENCH_INGEST_INFLIGHT (4); BENCH_CPU_PROF_DIR runs every
 * process of the stack with --cpu-prof into that folder; BENCH_NODE_ARGS (space-separated) adds node flags to every process of
 * the stack (e.g. --trace-gc, whose pauses go to the stack's output); BENCH_POSTGRES_URL, REDIS_URL,
 * BENCH_DATABASE (referral_bench; BENCH_KEEP_DATABASE=1 keeps it afterwards), BENCH_LOG (the stack's output; a file under /tmp by default).
 */
import { execSync } from 'node:child_process';
import os from 'node:os';
import pg from 'pg';
import { Api } from './api';
import { type BenchChain, startBenchChain } from './chain';
import {
  type ClaimListData,
  crossCheckClaimList,
  openClaimListDirect,
  runClaimListDirect,
  runClaimListGateway,
  setUpClaimListData,
} from './claim-checks';
import { loadBenchConfig } from './config';
import { CpuMeter, type CpuReport, waitUntilIdle } from './cpu';
import { type IngestResult, runIngest, summarizeTimings } from './ingest';
import { startGatewayFloor } from './gateway-floor';
import { crossCheck, explainLookup, openDirectLookup, type RunFigures, runDirectLoad, runGatewayLoad, setUpLookupData } from './lookup';
import { type MemoryReport, MemorySampler } from './memory';
import {
  type AttributionFigures,
  crossCheckAttribution,
  directPath,
  explainAttribution,
  grpcPath,
  runAttributionLoad,
  setUpAttributionData,
} from './attribution';
import { type ConversionsResult, benchLeaderboardRange, payoutsBoardBench, pointsBoardBench, runConversions, setUpLeaderboard } from './claim';
import { AGENCY_BOARD_PHASES, agencyBoardBench, setUpAgencyBoards } from './agency-boards';
import { firstRowsTable, type FirstRowsView, measureFirstRows } from './affiliate-list-browser';
import { type BoardBench, crossCheckBoard, openDirectBoard, pageMix, runBoardDirect, runBoardGateway } from './boards';
import {
  type AffiliateListData,
  crossCheckAffiliateList,
  type DashboardRun,
  dashboardCases,
  openDirectAffiliateList,
  runAffiliateDashboardDirect,
  runAffiliateDashboardGateway,
  runAffiliateListDirect,
  runAffiliateListGateway,
  setUpAffiliateList,
  slowestCases,
} from './affiliate-list';
import { type ReversalsResult, runReversals } from './reversals';
import { type EventsResult, runEvents } from './events';
import { checkpointCounters, checkpointsBetween, gapLine, SLOW_REQUEST_MS, stalls, stallTable } from './stalls';
import { type AudienceEvaluationResult, reportAudienceEvaluation, runAudienceEvaluation } from './audience-evaluation';
import { cpuSeconds, loadAverage, processName, processTree, startedAt } from './proc';
import { cpuTable, fmt, keyValues, lookupTable, memoryTable, section, table } from './report';
import { SERVICE_CATALOG } from '../services/platform/service-catalog';
import { deleteRedisKeys, dropDatabase, recreateDatabase, type RunningStack, startStack } from './stack';

const log = (line: string) => process.stdout.write(`${line}\n`);
const progress = (line: string) => process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);

/** The commit measured, and whether the working tree (which `npm run build` compiled) differs from it. */
function gitCommit(): string {
  const git = (args: string) =>
    execSync(`git ${args}`, { cwd: __dirname, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  try {
    const commit = git('rev-parse --short HEAD');
    const changed = git('status --porcelain --untracked-files=all -- ":(top)" ":(top,exclude)bench"').split('\n').filter(Boolean).length;
    return changed > 0 ? `${commit} + ${changed} uncommitted change(s) in the working tree (measured as built)` : commit;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

interface PhaseCpu {
  report: CpuReport;
  loadBefore: string;
  loadAfter: string;
  /** CPU seconds of the bench's own processes outside the stack's table (the lookup's floor): not another workload's. */
  benchOwnSeconds?: number;
}

/** BENCH_NODE_ARGS: extra node flags for every process of the stack (e.g. --trace-gc, to set GC pauses beside the stalls). */
const nodeArgsFromEnv = (): string[] => (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');

async function main(): Promise<number> {
  const config = loadBenchConfig();
  const phases = new Set(
    (
      process.env.BENCH_PHASES ??
      [
        'ingest,lookup,attribution,conversions,reversals,events,leaderboard,leaderboard-range,leaderboard-points',
        ...AGENCY_BOARD_PHASES,
        'claim-list,affiliate-list,affiliate-list-browser,audience-evaluation',
      ].join(',')
    )
      .split(',')
      .map((phase) => phase.trim()),
  );
  const postgresUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const databaseName = process.env.BENCH_DATABASE ?? 'referral_bench';
  const logFile = process.env.BENCH_LOG ?? `/tmp/referral-bench-${new Date().toISOString().replace(/[:.]/g, '-')}.log`;
  const cpuProfDir = process.env.BENCH_CPU_PROF_DIR;
  const cores = os.cpus().length;

  log(section('referral platform benchmark'));
  log(
    keyValues([
      ['commit', gitCommit()],
      ['started', new Date().toISOString()],
      ['node', process.version],
      ['cores', `${cores} (${os.cpus()[0]?.model ?? '?'})`],
      ['load average at start', loadAverage()],
      [
        'scale',
        `${config.scale} (ingest ${fmt.int(config.ingest.entries)} entries; lookup ${fmt.int(config.lookup.entries)} entries in ${config.lookup.segments} segments)`,
      ],
      ['lookup load', `${config.lookup.connections} connections, ${config.lookup.durationS} s (after ${config.lookup.warmupS} s of warm-up)`],
      [
        'attribution',
        `${fmt.int(config.attribution.affiliates)} affiliates, ${fmt.int(config.attribution.referred)} referred users; batches of ${config.attribution.batchSize} at ` +
          `${config.attribution.concurrency} concurrent calls, ${config.attribution.durationS} s`,
      ],
      ['stack output', logFile],
      ...(cpuProfDir ? [['cpu profiles', cpuProfDir] as [string, string]] : []),
    ]),
  );

  await recreateDatabase(postgresUrl, databaseName);
  let stack: RunningStack | undefined;
  let chain: BenchChain | undefined;
  let memory: MemorySampler | undefined;
  const clients: pg.Client[] = [];
  let cleanedUp = false;
  const cleanUp = async () => {
    if (cleanedUp) return;
    cleanedUp = true;
    for (const client of clients) await client.end().catch(() => undefined);
    await stack?.stop().catch((error) => process.stderr.write(`bench: stopping the stack failed: ${String(error)}\n`));
    await chain?.stop().catch(() => undefined);
    memory?.stop();
    // BENCH_KEEP_DATABASE=1 leaves the data for a look afterwards (EXPLAIN of a slow statement); the next run recreates it.
    if (process.env.BENCH_KEEP_DATABASE !== '1') {
      await dropDatabase(postgresUrl, databaseName).catch((error) =>
        process.stderr.write(`bench: dropping ${databaseName} failed: ${String(error)}\n`),
      );
    }
    if (stack) await deleteRedisKeys(redisUrl, stack.queuePrefix).catch(() => undefined);
  };
  const interrupted = () => {
    process.stderr.write('bench: interrupted; stopping the stack and cleaning up\n');
    void cleanUp().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  let ingest: IngestResult | undefined;
  let lookupRuns:
    | {
        gateway: RunFigures;
        /** The bare node:http floor (bench/gateway-floor.ts) and its own process's CPU seconds. */
        floor: { run: RunFigures; cpuSeconds: number };
        direct: RunFigures;
        prepared: RunFigures;
        sql: string;
        plan: string;
        notes: string[];
        users: number;
        entries: number;
      }
    | undefined;
  let conversions: ConversionsResult | undefined;
  let reversals: ReversalsResult | undefined;
  let events: EventsResult | undefined;
  /** Every leaderboard (the payouts board all time and over a week of days, the agency's boards), each gateway against its repository's statement. */
  const boardRuns: Array<{ bench: BoardBench; gateway: RunFigures; direct: RunFigures; check: string; plans: string[] }> = [];
  let audienceEvaluation: AudienceEvaluationResult | undefined;
  let affiliateListRuns:
    | {
        gateway: RunFigures;
        direct: RunFigures;
        data: AffiliateListData;
        check: string;
        plans: string[];
        dashboard: { gateway: DashboardRun; direct: DashboardRun; cases: number; check: string; checkpoints: { gateway: string; direct: string } };
      }
    | undefined;
  /** The affiliate list's seed, shared by its two phases. */
  let affiliateListData: AffiliateListData | undefined;
  let firstRows: FirstRowsView[] | undefined;
  let claimListRuns: { gateway: RunFigures; direct: RunFigures; data: ClaimListData; check: string } | undefined;
  let attributionRuns: { ours: AttributionFigures; direct: AttributionFigures; check: string; plan: string; suspensions: number } | undefined;
  const cpu = new Map<string, PhaseCpu>();
  let memoryReport: MemoryReport | undefined;
  let stackInfo: string;
  try {
    // The claim service signs and watches for this chain (nothing is deployed on it: see chain.ts). It
    // runs in every phase: a stack without a configured chain would start npm start's dev chain, one
    // more process beside the ones measured.
    chain = await startBenchChain();
    progress('starting the stack (node dist/scripts/start-stack.js)');
    stack = await startStack({
      extraEnv: {
        CHAIN_RPC_URLS: `${chain.chainId}=${chain.url}`,
        CLAIM_MANAGER_ADDRESSES: `${chain.chainId}=0x00000000000000000000000000000000000c1a1e`,
      },
      databaseName,
      postgresUrl,
      redisUrl,
      logFile,
      nodeArgs: [...(cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : []), ...nodeArgsFromEnv()],
    });
    stackInfo = `gateway ${stack.baseUrl}; ${Object.entries(stack.grpcAddresses)
      .map(([name, value]) => `${name}=${value}`)
      .join(', ')}; queue prefix ${stack.queuePrefix}`;
    progress(`stack ready: ${stackInfo}`);
    if (nodeArgsFromEnv().includes('--trace-gc')) {
      // --trace-gc stamps each pause with ms since its process started: these starts put them on the clock.
      const starts = processTree(stack.pid).map((pid) => `${processName(pid)} ${pid} ${new Date(startedAt(pid) ?? 0).toISOString().slice(11, 23)}`);
      progress(`--trace-gc: processes started (UTC): ${starts.join(', ')}`);
    }
    memory = new MemorySampler(stack.pid, config.memorySampleMs);
    memory.start();

    const admin = new pg.Client({ connectionString: stack.databaseUrl, application_name: 'bench-setup' });
    const meterClient = new pg.Client({ connectionString: stack.databaseUrl, application_name: 'bench-meter' });
    clients.push(admin, meterClient);
    await admin.connect();
    await meterClient.connect();
    const meter = new CpuMeter(stack.pid, meterClient);
    /**
     * Measures a phase. It starts once the stack is idle (what earlier work queued, e.g. consumers
     * of its events, is done), so that the phase has the machine to itself; except a phase that
     * measures that catching up itself (`settleFirst: false`).
     */
    const around = async <T>(phase: string, work: () => Promise<T>, { settleFirst = true }: { settleFirst?: boolean } = {}): Promise<T> => {
      if (settleFirst) {
        const settled = await waitUntilIdle(meter, { maxCores: 0.1, timeoutMs: 120_000 });
        if (!settled.idle) progress(`${phase}: the stack was still busy after ${fmt.s(settled.seconds)}; measuring anyway`);
        else if (settled.seconds > 5) progress(`${phase}: waited ${fmt.s(settled.seconds)} for the stack to be idle`);
      }
      memory!.setPhase(phase);
      const loadBefore = loadAverage();
      const start = await meter.snapshot();
      const result = await work();
      const end = await meter.snapshot();
      cpu.set(phase, { report: CpuMeter.between(start, end, cores), loadBefore, loadAfter: loadAverage() });
      return result;
    };
    const api = new Api(stack.baseUrl);

    if (phases.has('ingest')) {
      ingest = await runIngest({
        api,
        platformKey: stack.platformKey,
        db: admin,
        databaseUrl: stack.databaseUrl,
        redisUrl,
        queuePrefix: stack.queuePrefix,
        config,
        log: progress,
        around,
      });
      progress(`ingest: ours ${fmt.s(ingest.oursSeconds)}, COPY ${fmt.s(ingest.copySeconds)}`);
    }

    if (phases.has('lookup')) {
      memory.setPhase('lookup setup');
      progress(`lookup: setting up ${config.lookup.segments} segments and ${fmt.int(config.lookup.entries)} entries (COPY, not measured)`);
      const data = await setUpLookupData(api, stack.platformKey, admin, config);
      const direct = await openDirectLookup(stack.databaseUrl, data.project.id, config.lookup.connections);
      try {
        const notes = await crossCheck(api, data, direct);
        const { connections, durationS, warmupS } = config.lookup;
        if (warmupS > 0) {
          progress(`lookup: warming up the gateway (${warmupS} s)`);
          await runGatewayLoad(stack.baseUrl, data.project.keys.service, data.requests, connections, warmupS, 'warm-up');
        }
        progress(`lookup: gateway, ${connections} connections, ${durationS} s`);
        const gateway = await around('lookup (gateway)', () =>
          runGatewayLoad(stack!.baseUrl, data.project.keys.service, data.requests, connections, durationS, 'gateway (HTTP -> gRPC -> SQL)'),
        );
        progress(`lookup: the floor (bare node:http, the same gRPC call and JSON), ${connections} connections, ${durationS} s`);
        const floor = await startGatewayFloor(stack.grpcAddresses[SERVICE_CATALOG.audience.addressVariable]!, data.project.id);
        let floorRun: { run: RunFigures; cpuSeconds: number };
        try {
          if (warmupS > 0) await runGatewayLoad(floor.baseUrl, data.project.keys.service, data.requests, connections, warmupS, 'warm-up');
          const floorCpuBefore = cpuSeconds(floor.pid) ?? 0;
          const run = await around('lookup (floor)', () =>
            runGatewayLoad(floor.baseUrl, data.project.keys.service, data.requests, connections, durationS, 'floor (node:http -> gRPC -> SQL)'),
          );
          floorRun = { run, cpuSeconds: (cpuSeconds(floor.pid) ?? 0) - floorCpuBefore };
          const floorPhase = cpu.get('lookup (floor)');
          if (floorPhase) floorPhase.benchOwnSeconds = floorRun.cpuSeconds;
        } finally {
          await floor.stop();
        }
        if (warmupS > 0) {
          progress(`lookup: warming up the direct query (${warmupS} s)`);
          await runDirectLoad(direct, data.requests, connections, warmupS, 'warm-up');
        }
        progress(`lookup: direct SQL with pg, ${connections} concurrent, ${durationS} s`);
        const directRun = await around('lookup (direct)', () =>
          runDirectLoad(direct, data.requests, connections, durationS, 'direct (one SQL query, pg)'),
        );
        const plan = await explainLookup(direct, data.project.id);
        // Its connections go before the next pool opens: PostgreSQL's max_connections is shared.
        await direct.close();
        progress(`lookup: direct SQL as a named prepared statement, ${connections} concurrent, ${durationS} s`);
        const prepared = await openDirectLookup(stack.databaseUrl, data.project.id, connections, true);
        try {
          if (warmupS > 0) await runDirectLoad(prepared, data.requests, connections, warmupS, 'warm-up');
          const preparedRun = await around('lookup (direct, prepared)', () =>
            runDirectLoad(prepared, data.requests, connections, durationS, 'direct, named prepared statement (context)'),
          );
          lookupRuns = {
            gateway,
            floor: floorRun,
            direct: directRun,
            prepared: preparedRun,
            sql: direct.sql,
            plan,
            notes,
            users: data.users,
            entries: data.entries,
          };
        } finally {
          await prepared.close();
        }
      } finally {
        await direct.close();
      }
    }
    if (phases.has('attribution')) {
      memory.setPhase('attribution setup');
      const { affiliates, referred, concurrency, durationS, warmupS } = config.attribution;
      progress(
        `attribution: seeding ${fmt.int(affiliates)} affiliates and ${fmt.int(referred)} referrals (INSERT ... SELECT generate_series, not measured)`,
      );
      const data = await setUpAttributionData(api, stack.platformKey, admin, config);
      const ours = grpcPath(stack.grpcAddresses[SERVICE_CATALOG.agency.addressVariable]!, data.projectId);
      const direct = directPath(stack.databaseUrl, data.projectId, concurrency);
      try {
        const check = await crossCheckAttribution(ours, direct, data);
        if (warmupS > 0) {
          progress(`attribution: warming up gRPC (${warmupS} s)`);
          await runAttributionLoad(ours, data, concurrency, warmupS, 'warm-up');
        }
        progress(`attribution: gRPC, ${concurrency} concurrent calls, ${durationS} s`);
        const oursRun = await around('attribution (gRPC)', () => runAttributionLoad(ours, data, concurrency, durationS));
        if (warmupS > 0) {
          progress(`attribution: warming up direct SQL (${warmupS} s)`);
          await runAttributionLoad(direct, data, concurrency, warmupS, 'warm-up');
        }
        progress(`attribution: direct SQL with pg, ${concurrency} concurrent, ${durationS} s`);
        const directRun = await around('attribution (direct)', () => runAttributionLoad(direct, data, concurrency, durationS));
        const plan = await explainAttribution(stack.databaseUrl, data);
        attributionRuns = { ours: oursRun, direct: directRun, check, plan, suspensions: data.suspensions };
      } finally {
        await ours.close();
        await direct.close();
      }
    }
    if (phases.has('conversions')) {
      memory.setPhase('conversions');
      conversions = await runConversions({
        api,
        platformKey: stack.platformKey,
        db: admin,
        config,
        log: progress,
        around,
        settle: () => waitUntilIdle(meter, { maxCores: 0.1, timeoutMs: 300_000 }),
      });
      progress(`conversions: ours ${fmt.s(conversions.oursSeconds)}, INSERT ... SELECT ${fmt.s(conversions.limitSeconds)}`);
    }
    if (phases.has('reversals')) {
      memory.setPhase('reversals');
      reversals = await runReversals({
        api,
        platformKey: stack.platformKey,
        db: admin,
        config,
        log: progress,
        around,
        settle: () => waitUntilIdle(meter, { maxCores: 0.1, timeoutMs: 300_000 }),
      });
      progress(`reversals: ours ${fmt.s(reversals.ours.seconds)}, INSERT ... SELECT ${fmt.s(reversals.limitSeconds)}`);
    }
    if (phases.has('events')) {
      memory.setPhase('events');
      events = await runEvents({ api, platformKey: stack.platformKey, db: admin, databaseUrl: stack.databaseUrl, config, log: progress, around });
      progress(`events: ours ${fmt.s(events.ours.seconds)}, COPY ${fmt.s(events.copySeconds)}`);
    }
    /** One board: cross-checked, then the gateway and the direct statement each warmed up and measured at the same concurrency. */
    const runBoard = async (bench: BoardBench, { connections, durationS, warmupS }: { connections: number; durationS: number; warmupS: number }) => {
      const { phase } = bench;
      memory!.setPhase(phase);
      const direct = openDirectBoard(stack!.databaseUrl, bench, connections);
      try {
        const check = await crossCheckBoard(api, bench, direct);
        if (warmupS > 0) {
          progress(`${phase}: warming up the gateway (${warmupS} s)`);
          await runBoardGateway(stack!.baseUrl, bench, connections, warmupS, 'warm-up');
        }
        progress(`${phase}: gateway, ${connections} connections, ${durationS} s`);
        const gateway = await around(`${phase} (gateway)`, () =>
          runBoardGateway(stack!.baseUrl, bench, connections, durationS, 'gateway (HTTP -> gRPC -> SQL)'),
        );
        if (warmupS > 0) {
          progress(`${phase}: warming up the direct statement (${warmupS} s)`);
          await runBoardDirect(direct, connections, warmupS, 'warm-up');
        }
        progress(`${phase}: direct SQL with pg, ${connections} concurrent, ${durationS} s`);
        const directRun = await around(`${phase} (direct)`, () =>
          runBoardDirect(direct, connections, durationS, "direct (the repository's statement, pg)"),
        );
        const plans: string[] = [];
        for (const n of bench.checked) plans.push(`-- ${bench.path(n)}\n${await direct.explain(n)}`);
        boardRuns.push({ bench, gateway, direct: directRun, check, plans });
      } finally {
        await direct.close();
      }
    };
    if (phases.has('leaderboard') || phases.has('leaderboard-range')) {
      memory.setPhase('leaderboard setup');
      const { movements, affiliates, pageSize } = config.leaderboard;
      progress(
        `leaderboard: seeding ${fmt.int(movements)} affiliate payouts to ${fmt.int(affiliates)} affiliates (INSERT ... SELECT generate_series, not measured)`,
      );
      const data = await setUpLeaderboard(api, stack.platformKey, admin, config);
      if (phases.has('leaderboard')) await runBoard(await payoutsBoardBench(data, pageSize), config.leaderboard);
      if (phases.has('leaderboard-range')) {
        // The week's board holds fewer users than the whole board: its pages are drawn from its own size.
        const range = benchLeaderboardRange();
        const { rows } = await admin.query<{ entries: string }>(
          `SELECT count(DISTINCT (identifier_type, identifier)) AS entries FROM claim.leaderboard_days
           WHERE project_id = $1 AND currency_id = $2 AND user_type = 'affiliate' AND day BETWEEN $3 AND $4`,
          [data.project.id, data.project.currency.id, range.from, range.to],
        );
        const pages = pageMix(Number(rows[0]!.entries), pageSize, config.leaderboard.topShare, 12);
        await runBoard(await payoutsBoardBench({ ...data, pages }, pageSize, range), config.leaderboard);
      }
    }
    if (phases.has('leaderboard-points')) {
      memory.setPhase('leaderboard-points setup');
      const { movements, affiliates } = config.leaderboard;
      progress(
        `leaderboard-points: seeding ${fmt.int(movements)} point payouts to ${fmt.int(affiliates)} affiliates (INSERT ... SELECT generate_series, not measured)`,
      );
      await runBoard(await pointsBoardBench({ api, platformKey: stack.platformKey, db: admin, config }), config.leaderboard);
    }
    const agencyBoards = AGENCY_BOARD_PHASES.filter((phase) => phases.has(phase));
    if (agencyBoards.length > 0) {
      memory.setPhase('agency boards setup');
      const { conversions, users, affiliates } = config.boards;
      progress(
        `agency boards: seeding ${fmt.int(conversions)} conversions of ${fmt.int(users)} users referred by ${fmt.int(affiliates)} affiliates (INSERT ... SELECT generate_series, not measured)`,
      );
      const data = await setUpAgencyBoards(api, stack.platformKey, admin, config);
      for (const phase of agencyBoards) await runBoard(await agencyBoardBench(phase, data, admin, config), config.boards);
    }
    if (phases.has('affiliate-list')) {
      memory.setPhase('affiliate list setup');
      const { affiliates, connections, durationS, warmupS, pageSize } = config.affiliateList;
      progress(`affiliate list: seeding ${fmt.int(affiliates)} affiliates with metrics (INSERT ... SELECT generate_series, not measured)`);
      const data = await setUpAffiliateList(api, stack.platformKey, admin, config);
      affiliateListData = data;
      const direct = openDirectAffiliateList(stack.databaseUrl, data, connections, pageSize);
      try {
        const check = await crossCheckAffiliateList(api, data, direct);
        if (warmupS > 0) {
          progress(`affiliate list: warming up the gateway (${warmupS} s)`);
          await runAffiliateListGateway(stack.baseUrl, data, connections, warmupS, 'warm-up');
        }
        progress(`affiliate list: gateway, ${connections} connections, ${durationS} s`);
        const gateway = await around('affiliate list (gateway)', () =>
          runAffiliateListGateway(stack!.baseUrl, data, connections, durationS, 'gateway (HTTP -> gRPC -> SQL)'),
        );
        if (warmupS > 0) await runAffiliateListDirect(direct, data, connections, warmupS, 'warm-up');
        progress(`affiliate list: direct SQL with pg, ${connections} concurrent, ${durationS} s`);
        const directRun = await around('affiliate list (direct)', () =>
          runAffiliateListDirect(direct, data, connections, durationS, 'direct (page query + count, pg)'),
        );
        const { dashboardConnections, dashboardDurationS } = config.affiliateList;
        const cases = await dashboardCases(data, direct, pageSize);
        const dashboardCheck = await crossCheckAffiliateList(api, data, direct, cases);
        progress(
          `affiliate list: dashboard, ${cases.length} cases, ${dashboardConnections} connections, ${dashboardDurationS} s (gateway, then direct SQL)`,
        );
        const checkpointsBefore = await checkpointCounters(admin);
        const dashboardGateway = await around('affiliate dashboard (gateway)', () =>
          runAffiliateDashboardGateway(
            stack!.baseUrl,
            data,
            cases,
            dashboardConnections,
            dashboardDurationS,
            `gateway, ${dashboardConnections} connections`,
          ),
        );
        const checkpointsBetweenRuns = await checkpointCounters(admin);
        const dashboardDirect = await around('affiliate dashboard (direct)', () =>
          runAffiliateDashboardDirect(
            direct,
            cases,
            dashboardConnections,
            dashboardDurationS,
            `direct (page query + count, pg), ${dashboardConnections} connections`,
          ),
        );
        const checkpoints = {
          gateway: checkpointsBetween(checkpointsBefore, checkpointsBetweenRuns),
          direct: checkpointsBetween(checkpointsBetweenRuns, await checkpointCounters(admin)),
        };
        const plans = [];
        for (const one of data.cases) plans.push(await direct.explain(one));
        affiliateListRuns = {
          gateway,
          direct: directRun,
          data,
          check,
          plans,
          dashboard: { gateway: dashboardGateway, direct: dashboardDirect, cases: cases.length, check: dashboardCheck, checkpoints },
        };
      } finally {
        await direct.close();
      }
    }
    if (phases.has('affiliate-list-browser')) {
      if (!affiliateListData) {
        memory.setPhase('affiliate list setup');
        progress(
          `affiliate list: seeding ${fmt.int(config.affiliateList.affiliates)} affiliates with metrics (INSERT ... SELECT generate_series, not measured)`,
        );
        affiliateListData = await setUpAffiliateList(api, stack.platformKey, admin, config);
      }
      const data = affiliateListData;
      const runs = config.affiliateList.browserRuns;
      progress(`affiliate list in the browser: first rows of the admin's list in Chromium, ${runs} runs of each view`);
      firstRows = await around('affiliate list (browser)', () => measureFirstRows(stack!.baseUrl, data, runs));
    }
    if (phases.has('audience-evaluation')) {
      memory.setPhase('audience evaluation');
      audienceEvaluation = await around('audience evaluation', () =>
        runAudienceEvaluation({
          api,
          platformKey: stack!.platformKey,
          db: admin,
          scale: config.scale,
          samples: Number(process.env.BENCH_TRAIT_SAMPLES ?? 200),
          log: progress,
        }),
      );
      progress(`audience evaluation: ours ${fmt.s(audienceEvaluation.statementSeconds)}, direct ${fmt.s(audienceEvaluation.directSeconds)}`);
    }
    if (phases.has('claim-list') && chain) {
      memory.setPhase('claim list setup');
      const { movements, connections, durationS, warmupS } = config.claimList;
      progress(`claim list: paying ${fmt.int(movements)} movements of one user through the API, closing a check after each batch (not measured)`);
      const data = await setUpClaimListData(api, stack.platformKey, admin, chain.chainId, config, progress);
      const check = await crossCheckClaimList(api, stack.databaseUrl, data);
      if (warmupS > 0) await runClaimListGateway(stack.baseUrl, data, connections, warmupS, 'warm-up');
      progress(`claim list: gateway, ${connections} connections, ${durationS} s`);
      const gateway = await around('claim list (gateway)', () =>
        runClaimListGateway(stack!.baseUrl, data, connections, durationS, 'gateway (HTTP -> gRPC -> SQL)'),
      );
      const pool = openClaimListDirect(stack.databaseUrl, connections);
      try {
        if (warmupS > 0) await runClaimListDirect(pool, data, connections, warmupS, 'warm-up');
        progress(`claim list: direct SQL with pg, ${connections} concurrent, ${durationS} s`);
        const direct = await around('claim list (direct)', () =>
          runClaimListDirect(pool, data, connections, durationS, 'direct (one SQL query, pg)'),
        );
        claimListRuns = { gateway, direct, data, check };
      } finally {
        await pool.close();
      }
    }
    memory.setPhase('shutdown');
  } finally {
    progress('stopping the stack');
    await cleanUp();
    memoryReport = memory?.stop();
  }
  progress(`done; load average ${loadAverage()}`);

  // ---------------------------------------------------------------- report
  const goals: Goal[] = [];
  log(section('stack'));
  log(stackInfo);

  if (ingest) {
    const ratio = ingest.oursSeconds / ingest.copySeconds;
    const timings = summarizeTimings(ingest.timings);
    log(section('batch ingest'));
    log(
      table(
        ['path', 'time', 'entries/s', 'rows'],
        [
          [
            `ours: ${ingest.batches} x POST .../entries/batch (${config.ingest.inflight} in flight) until all jobs completed`,
            fmt.s(ingest.oursSeconds),
            fmt.int(ingest.entries / ingest.oursSeconds),
            fmt.int(ingest.rowsInTable),
          ],
          [
            `COPY into an identical table (same PK, indexes, FK)${config.ingest.copyStreams > 1 ? `, ${config.ingest.copyStreams} streams` : ''}`,
            fmt.s(ingest.copySeconds),
            fmt.int(ingest.entries / ingest.copySeconds),
            fmt.int(ingest.copyRows),
          ],
        ],
      ),
    );
    log(`ratio ours / COPY: ${fmt.ratio(ratio)} (goal <= ${config.goals.ingestRatioMax.toFixed(1)}x)`);
    log(
      `entries_count ${fmt.int(ingest.entriesCount)}; jobs added ${fmt.int(ingest.added)}, skipped ${fmt.int(ingest.skipped)}, failed ${ingest.failed}; ` +
        `last batch accepted after ${fmt.s(ingest.submittedAfterSeconds)}`,
    );
    log(
      table(
        ['per batch of ' + fmt.int(config.ingest.batchSize), 'p50', 'mean', 'max', 'sum'],
        [
          [
            'POST round trip (202)',
            fmt.ms(timings.submit!.p50),
            fmt.ms(timings.submit!.mean),
            fmt.ms(timings.submit!.max),
            fmt.s(timings.submit!.sum / 1000),
          ],
          [
            'queued, waiting for a worker',
            fmt.ms(timings.queued!.p50),
            fmt.ms(timings.queued!.mean),
            fmt.ms(timings.queued!.max),
            fmt.s(timings.queued!.sum / 1000),
          ],
          [
            'worker: apply (INSERT ... SELECT unnest)',
            fmt.ms(timings.process!.p50),
            fmt.ms(timings.process!.mean),
            fmt.ms(timings.process!.max),
            fmt.s(timings.process!.sum / 1000),
          ],
        ],
      ),
    );
    const workerBusy = timings.process!.sum / 1000 / (ingest.workerConcurrency * ingest.oursSeconds);
    log(`batch workers (BATCH_WORKER_CONCURRENCY=${ingest.workerConcurrency}) busy ${fmt.pct(workerBusy)} of our ingest time`);
    const same = JSON.stringify(ingest.indexesCompared.ours) === JSON.stringify(ingest.indexesCompared.copy);
    log(`COPY table ${same ? 'has the same' : 'DIFFERS in'} indexes and constraints: ${ingest.indexesCompared.copy.join('; ')}`);
    logPhasesCpu(cpu, 'entry', [
      ['ingest (gateway)', ingest.entries],
      ['ingest (COPY)', ingest.entries],
    ]);
    goals.push([
      `ingest: ours / COPY <= ${config.goals.ingestRatioMax}`,
      fmt.ratio(ratio),
      `${fmt.s(ingest.oursSeconds)} vs ${fmt.s(ingest.copySeconds)}`,
      ratio <= config.goals.ingestRatioMax,
    ]);
    goals.push([
      'ingest: every entry stored, entries_count right',
      fmt.int(ingest.entriesCount),
      `rows ${fmt.int(ingest.rowsInTable)}, failed jobs ${ingest.failed}`,
      ingest.entriesCount === ingest.entries && ingest.rowsInTable === ingest.entries && ingest.failed === 0,
    ]);
  }

  if (lookupRuns) {
    const { gateway, floor, direct, prepared } = lookupRuns;
    const ratio = gateway.rps / direct.rps;
    log(section('lookup: getUserAudiences'));
    log(
      `${fmt.int(lookupRuns.entries)} entries, ${fmt.int(lookupRuns.users)} users in 1-3 of ${config.lookup.segments} segments (${config.lookup.badged} with badges); ` +
        `requests: ${fmt.pct(config.lookup.existingShare)} existing users, ${fmt.pct(config.lookup.mixedCaseShare)} in mixed case`,
    );
    log(lookupTable([gateway, floor.run, direct, prepared]));
    log(
      `throughput ratio gateway / direct: ${fmt.ratio(ratio)} (goal >= ${config.goals.lookupRatioMin}); gateway p99 ${fmt.ms(gateway.p99)} (goal < ${config.goals.lookupP99MaxMs} ms)`,
    );
    log(`for context, gateway / direct as a named prepared statement: ${fmt.ratio(gateway.rps / prepared.rps)}`);
    log(`cross-check (gateway == direct): ${lookupRuns.notes.join(' | ')}`);
    const floorRequests = requests(floor.run);
    const gatewayCpu = cpu.get('lookup (gateway)')?.report.rows.find((row) => row.group === 'gateway')?.seconds;
    const gatewayRequests = requests(gateway);
    log(
      `the floor (bench/gateway-floor.ts: node:http, the same gRPC client, batching and JSON; no Express, auth, validation, request id, metrics, logs): ` +
        `${fmt.int((floor.cpuSeconds / floorRequests) * 1e6)} µs of CPU per lookup in its process, ` +
        `against the gateway's ${gatewayCpu === undefined ? '?' : fmt.int((gatewayCpu / gatewayRequests) * 1e6)} µs; rate ${fmt.ratio(gateway.rps / floor.run.rps)} of the floor's`,
    );
    logPhasesCpu(cpu, 'request', [
      ['lookup (gateway)', requests(gateway)],
      ['lookup (floor)', requests(floor.run)],
      ['lookup (direct)', requests(direct)],
      ['lookup (direct, prepared)', requests(prepared)],
    ]);
    log('\nthe direct SQL (one query per lookup; the service batches concurrent lookups into one query):');
    log(lookupRuns.sql);
    log('\nEXPLAIN (ANALYZE, BUFFERS), one existing user, after the load:');
    log(lookupRuns.plan);
    goals.push(...gatewayGoals('lookup', gateway, direct, config.goals.lookupRatioMin, config.goals.lookupP99MaxMs));
  }

  if (attributionRuns) {
    const { ours, direct } = attributionRuns;
    const ratio = ours.attributionsPerSecond / direct.attributionsPerSecond;
    const { affiliates, referred, batchSize, concurrency } = config.attribution;
    log(section('attribution: BatchResolveAttribution'));
    log(
      `${fmt.int(affiliates)} affiliates (${fmt.int(attributionRuns.suspensions)} suspension periods), ${fmt.int(referred)} referred users; ` +
        `batches of ${batchSize} (90% referred users, moments spread over 2026), ${concurrency} concurrent calls`,
    );
    log(
      table(
        ['path', 'attributions/s', 'calls/s', 'p50 per call', 'p99 per call', 'max', 'calls', 'errors'],
        [ours, direct].map((run) => [
          run.label,
          fmt.int(run.attributionsPerSecond),
          fmt.int(run.callsPerSecond),
          fmt.ms(run.p50),
          fmt.ms(run.p99),
          fmt.ms(run.max),
          fmt.int(run.calls),
          fmt.int(run.errors),
        ]),
      ),
    );
    log(`throughput ratio gRPC / direct: ${fmt.ratio(ratio)} (goal >= ${config.goals.attributionRatioMin})`);
    log(
      `outcomes (gRPC run): ${fmt.int(ours.outcomes.attributed)} attributed, ${fmt.int(ours.outcomes.notReferred)} not referred, ` +
        `${fmt.int(ours.outcomes.suspended)} affiliate suspended; cross-check: ${attributionRuns.check}`,
    );
    logPhasesCpu(cpu, 'attribution', [
      ['attribution (gRPC)', ours.calls * batchSize],
      ['attribution (direct)', direct.calls * batchSize],
    ]);
    log('\nEXPLAIN (ANALYZE, BUFFERS), one batch, after the load:');
    log(attributionRuns.plan);
    goals.push([
      `attribution: gRPC / direct >= ${config.goals.attributionRatioMin}`,
      fmt.ratio(ratio),
      `${fmt.int(ours.attributionsPerSecond)} vs ${fmt.int(direct.attributionsPerSecond)} attributions/s`,
      ratio >= config.goals.attributionRatioMin,
    ]);
    goals.push([
      'attribution: every call answered',
      `${fmt.int(ours.errors + direct.errors)} failed`,
      `p99 per call ${fmt.ms(ours.p99)} (gRPC), ${fmt.ms(direct.p99)} (direct)`,
      ours.errors + direct.errors === 0 && ours.calls > 0,
    ]);
  }

  if (conversions) {
    const perSecond = conversions.conversions / conversions.oursSeconds;
    const ratio = conversions.oursSeconds / conversions.limitSeconds;
    log(section('conversions: batch intake until paid'));
    log(
      `${fmt.int(conversions.conversions)} conversions of ${fmt.int(conversions.users)} users (${fmt.int(conversions.referred)} referred by ` +
        `${conversions.affiliates} affiliates); ${conversions.batches} x POST /api/v1/conversions/batch of 1,000, ${conversions.inflight} in flight`,
    );
    log(
      table(
        ['path', 'time', 'conversions/s', 'movements'],
        [
          [
            'ours: intake, attribution (agency gRPC), movements, claim checks, leaderboard totals, events',
            fmt.s(conversions.oursSeconds),
            fmt.int(perSecond),
            fmt.int(conversions.movements),
          ],
          [
            'INSERT ... SELECT of the same movement rows into an identical table',
            fmt.s(conversions.limitSeconds),
            fmt.int(conversions.conversions / conversions.limitSeconds),
            fmt.int(conversions.limitRows),
          ],
        ],
      ),
    );
    log(`ratio ours / INSERT ... SELECT: ${fmt.ratio(ratio)}; last batch accepted after ${fmt.s(conversions.submittedAfterSeconds)}`);
    log(
      `statuses ${Object.entries(conversions.byStatus)
        .map(([status, n]) => `${status} ${fmt.int(n)}`)
        .join(', ')}; ` + `events ${fmt.int(conversions.events)}; unfinished batches ${conversions.unfinishedBatches}`,
    );
    log(
      `consumers of the events (audience inputs, agency metrics, webhooks) idle (2 s under 0.1 cores) ${fmt.s(conversions.downstreamSeconds)} after the last payment` +
        (conversions.downstreamIdle ? '; the limit ran after that' : '; NOT idle after 300 s: the limit shared the machine'),
    );
    logPhasesCpu(cpu, 'conversion', [
      ['conversions (gateway)', conversions.conversions],
      ['conversions (downstream catch-up)', conversions.conversions],
      ['conversions (INSERT ... SELECT)', conversions.conversions],
    ]);
    goals.push([
      `conversions: >= ${fmt.int(config.goals.conversionsPerSecondMin)} paid/s`,
      fmt.int(perSecond),
      `${fmt.s(conversions.oursSeconds)}; ${fmt.ratio(ratio)} of INSERT ... SELECT`,
      perSecond >= config.goals.conversionsPerSecondMin,
    ]);
    goals.push([
      'conversions: every one paid once, every event written',
      fmt.int(conversions.byStatus.processed ?? 0),
      `movements ${fmt.int(conversions.movements)}, events ${fmt.int(conversions.events)}`,
      conversions.byStatus.processed === conversions.conversions &&
        conversions.events === conversions.conversions &&
        conversions.unfinishedBatches === 0,
    ]);
  }

  if (events) {
    const { ours } = events;
    const perSecond = events.events / ours.seconds;
    const copyPerSecond = events.copyRows / events.copySeconds;
    const ratio = perSecond / copyPerSecond;
    log(section('tracking events: POST /api/v1/events'));
    log(
      `${fmt.int(events.events)} events of ${fmt.int(events.visitors)} visitors (80% pageviews, a tenth of them naming a code; 10% connect_wallet ` +
        `without signature; 10% custom events with a user) in ${fmt.int(events.batches)} requests of ${events.batchSize}, ${events.connections} in flight`,
    );
    log(
      table(
        ['path', 'time', 'events/s', 'p50', 'p99', 'max', 'rows'],
        [
          [
            'ours: HTTP -> gRPC -> one statement (batch, events, dedup rows)',
            fmt.s(ours.seconds),
            fmt.int(perSecond),
            fmt.ms(ours.p50),
            fmt.ms(ours.p99),
            fmt.ms(ours.max),
            `${fmt.int(events.stored)} in ${fmt.int(events.storedBatches)} batches`,
          ],
          [
            'COPY of the same rows into a fresh table like tracking_events',
            fmt.s(events.copySeconds),
            fmt.int(copyPerSecond),
            '-',
            '-',
            '-',
            fmt.int(events.copyRows),
          ],
        ],
      ),
    );
    log(
      `ratio ours / COPY (events/s): ${fmt.ratio(ratio)} (goal >= ${config.goals.eventsRatioMin}); p99 per request of ${events.batchSize} ${fmt.ms(ours.p99)}; ` +
        `answers ${fmt.int(ours.ok)} 2xx, ${fmt.int(ours.non2xx)} non-2xx, ${fmt.int(ours.errors)} errors` +
        (events.resent > 0 ? ` (${events.resent} sent again after the run)` : ''),
    );
    const { processing } = events;
    log(
      `processing (clicks, wallet links, referrals, counts) caught up ${fmt.s(processing.seconds)} after the run` +
        (processing.unprocessed > 0 ? ` (NOT: ${fmt.int(processing.unprocessed)} batches unprocessed at the timeout)` : '') +
        `; clicks ${fmt.int(processing.clicks)} (expected ${fmt.int(processing.expectedClicks)}); ` +
        `referrals from ${fmt.int(processing.expectedReferred)} signed connect_wallets ${fmt.int(processing.referred)}`,
    );
    logPhasesCpu(cpu, 'event', [
      ['events (gateway)', events.events],
      ['events (COPY)', events.events],
    ]);
    goals.push([
      `events: >= ${config.goals.eventsRatioMin}x COPY, every event stored once, clicks and referrals exact`,
      `${fmt.int(perSecond)}/s`,
      `${fmt.ratio(ratio)} of COPY; p99 ${fmt.ms(ours.p99)}; stored ${fmt.int(events.stored)} of ${fmt.int(events.events)}; ` +
        `clicks ${fmt.int(processing.clicks)}/${fmt.int(processing.expectedClicks)}, referrals ${fmt.int(processing.referred)}/${fmt.int(processing.expectedReferred)}`,
      ratio >= config.goals.eventsRatioMin &&
        events.stored === events.events &&
        processing.unprocessed === 0 &&
        processing.clicks === processing.expectedClicks &&
        processing.referred === processing.expectedReferred,
    ]);
  }

  if (reversals) {
    const { ours, books } = reversals;
    const perSecond = reversals.reversals / ours.seconds;
    const ratio = ours.seconds / reversals.limitSeconds;
    log(section('reversals: POST /api/v1/conversions/:conversionId/reverse'));
    log(
      `${fmt.int(reversals.reversals)} paid conversions of ${fmt.int(reversals.users)} users (${fmt.int(reversals.referred)} referred by ` +
        `${reversals.affiliates} affiliates; paid in ${fmt.s(reversals.payingSeconds)}, not measured), each reversed whole by one request, ` +
        `${reversals.connections} in flight; every movement was in an open claim check`,
    );
    log(
      table(
        ['path', 'time', 'reversals/s', 'p50', 'p99', 'max', 'rows'],
        [
          [
            'ours: HTTP -> gRPC -> reversal, movement reversals, open checks shrunk, events',
            fmt.s(ours.seconds),
            fmt.int(perSecond),
            fmt.ms(ours.p50),
            fmt.ms(ours.p99),
            fmt.ms(ours.max),
            `${fmt.int(books.reversals)} + ${fmt.int(books.movementReversals)}`,
          ],
          [
            'INSERT ... SELECT of the same conversion_reversals + movement_reversals into identical tables',
            fmt.s(reversals.limitSeconds),
            fmt.int(reversals.limitRows.reversals / reversals.limitSeconds),
            '-',
            '-',
            '-',
            `${fmt.int(reversals.limitRows.reversals)} + ${fmt.int(reversals.limitRows.movementReversals)}`,
          ],
        ],
      ),
    );
    log(
      `ratio ours / INSERT ... SELECT: ${fmt.ratio(ratio)}; answers ${fmt.int(ours.ok)} 2xx, ${fmt.int(ours.non2xx)} non-2xx, ${fmt.int(ours.errors)} errors` +
        (reversals.resent > 0 ? ` (${reversals.resent} sent again after the run)` : ''),
    );
    log(
      `consumers of claim.conversion.reversed idle (2 s under 0.1 cores) ${fmt.s(reversals.downstreamSeconds)} after the last reversal` +
        (reversals.downstreamIdle ? '; the limit ran after that' : '; NOT idle after 300 s: the limit shared the machine'),
    );
    logPhasesCpu(cpu, 'reversal', [
      ['reversals (gateway)', reversals.reversals],
      ['reversals (downstream catch-up)', reversals.reversals],
      ['reversals (INSERT ... SELECT)', reversals.reversals],
    ]);
    goals.push([
      'reversals: reported (issue 23 §6 sets no rate)',
      `${fmt.int(perSecond)}/s`,
      `p99 ${fmt.ms(ours.p99)}; ${fmt.ratio(ratio)} of INSERT ... SELECT`,
      ours.ok + reversals.resent === reversals.reversals,
    ]);
    goals.push([
      'reversals: each applied once, the books balanced',
      fmt.int(books.reversals),
      `movement reversals ${fmt.int(books.movementReversals)} of ${fmt.int(books.movements)} movements (${fmt.int(books.reversedOnceWhole)} once and whole), ` +
        `checks still holding ${books.checksHolding}, events ${fmt.int(books.reversedEvents)}, balanced ${books.balanced}`,
      books.reversals === reversals.reversals &&
        books.movementReversals === books.movements &&
        books.reversedOnceWhole === books.movements &&
        books.checksHolding === 0 &&
        books.reversedEvents === reversals.reversals &&
        books.balanced,
    ]);
  }

  for (const { bench, gateway, direct, check, plans } of boardRuns) {
    const { phase } = bench;
    const ratio = gateway.rps / direct.rps;
    log(section(bench.title));
    log(bench.describe);
    log(lookupTable([gateway, direct]));
    log(
      `throughput ratio gateway / direct: ${fmt.ratio(ratio)} (goal >= ${config.goals.leaderboardRatioMin}); ` +
        `p99 gateway ${fmt.ms(gateway.p99)}, direct ${fmt.ms(direct.p99)}` +
        (bench.p99Goal ? ` (goal < ${config.goals.leaderboardP99MaxMs} ms)` : ''),
    );
    log(`cross-check: ${check}`);
    logPhasesCpu(cpu, 'request', [
      [`${phase} (gateway)`, requests(gateway)],
      [`${phase} (direct)`, requests(direct)],
    ]);
    log("\nEXPLAIN (ANALYZE, BUFFERS) of the cross-checked requests' statements, after the load:");
    log(plans.join('\n\n'));
    // Both rates and both p99s on the goal's line (issue 25 §6: the p99 beside the direct query's).
    goals.push([
      `${phase}: gateway / direct >= ${config.goals.leaderboardRatioMin}`,
      fmt.ratio(ratio),
      `${fmt.int(gateway.rps)} vs ${fmt.int(direct.rps)} req/s; p99 ${fmt.ms(gateway.p99)} vs ${fmt.ms(direct.p99)}`,
      ratio >= config.goals.leaderboardRatioMin,
    ]);
    // The all-time payouts board's p99 has a goal (issue 9 §9); the others' is reported beside the direct query's.
    if (bench.p99Goal) {
      goals.push([
        `${phase}: gateway p99 < ${config.goals.leaderboardP99MaxMs} ms`,
        fmt.ms(gateway.p99),
        p99Detail(gateway, direct, config.goals.leaderboardP99MaxMs),
        gateway.p99 < config.goals.leaderboardP99MaxMs,
      ]);
    }
    goals.push(answeredAll2xx(phase, gateway));
  }

  if (affiliateListRuns) {
    const { gateway, direct, data } = affiliateListRuns;
    const ratio = gateway.rps / direct.rps;
    log(section('affiliate list: GET /api/v1/projects/:projectId/affiliates'));
    log(
      `${fmt.int(data.affiliates)} affiliates with metrics; pages of ${config.affiliateList.pageSize}; the mix: ${data.cases.map((one) => one.label).join('; ')}`,
    );
    log(lookupTable([gateway, direct]));
    log(
      `throughput ratio gateway / direct: ${fmt.ratio(ratio)}; gateway p99 ${fmt.ms(gateway.p99)} (goal < ${config.goals.affiliateListP99MaxMs} ms)`,
    );
    log(`cross-check: ${affiliateListRuns.check}`);
    logPhasesCpu(cpu, 'request', [
      ['affiliate list (gateway)', requests(gateway)],
      ['affiliate list (direct)', requests(direct)],
    ]);
    const dash = affiliateListRuns.dashboard;
    log(
      `\ndashboard: ${dash.cases} cases (8 filters x 6 sorts x 2 orders, each filter's first, middle and last page), ` +
        `${config.affiliateList.dashboardConnections} connections each waiting for its page, ${config.affiliateList.dashboardDurationS} s per path`,
    );
    log(lookupTable([dash.gateway.figures, dash.direct.figures]));
    log(
      `dashboard gateway / direct: p50 ${fmt.ratio(dash.gateway.figures.p50 / dash.direct.figures.p50)}, p99 ${fmt.ratio(dash.gateway.figures.p99 / dash.direct.figures.p99)}, ` +
        `throughput ${fmt.ratio(dash.gateway.figures.rps / dash.direct.figures.rps)}; cross-check: ${dash.check}`,
    );
    log('the slowest cases through the gateway (by their slowest request), the direct query beside:');
    log(slowestCases(dash.gateway, dash.direct, 10));
    // Most connections slow at once is something shared (a checkpoint, a pause of a process), not a case's own cost.
    const minStall = Math.max(2, config.affiliateList.dashboardConnections - 1);
    for (const [path, run] of [
      ['gateway', dash.gateway],
      ['direct', dash.direct],
    ] as const) {
      log(`\nstalls (${path}): ${minStall} or more requests slower than ${SLOW_REQUEST_MS} ms at once; ${dash.checkpoints[path]} during the run`);
      log(stallTable(stalls(run.slow.requests, minStall)));
      log(gapLine(run.gaps));
    }
    logPhasesCpu(cpu, 'request', [
      ['affiliate dashboard (gateway)', requests(dash.gateway.figures)],
      ['affiliate dashboard (direct)', requests(dash.direct.figures)],
    ]);
    log("\nEXPLAIN (ANALYZE, BUFFERS) of each case's page query, after the load:");
    log(affiliateListRuns.plans.join('\n\n'));
    goals.push([
      `affiliate list, dashboard (${config.affiliateList.dashboardConnections} connections, every filter x sort): gateway p99 < ${config.goals.affiliateListP99MaxMs} ms`,
      fmt.ms(dash.gateway.figures.p99),
      p99Detail(dash.gateway.figures, dash.direct.figures, config.goals.affiliateListP99MaxMs),
      dash.gateway.figures.p99 < config.goals.affiliateListP99MaxMs,
    ]);
    goals.push([
      `affiliate list, saturating (${config.affiliateList.connections} connections): gateway p99 < ${config.goals.affiliateListP99MaxMs} ms`,
      fmt.ms(gateway.p99),
      `p50 ${fmt.ms(gateway.p50)}; ${fmt.int(gateway.rps)} vs ${fmt.int(direct.rps)} req/s direct (${fmt.ratio(ratio)})`,
      gateway.p99 < config.goals.affiliateListP99MaxMs,
    ]);
    goals.push(answeredAll2xx('affiliate list', gateway));
  }

  if (firstRows && affiliateListData) {
    log(section('affiliate list in the browser: navigation to the first rows (Chromium)'));
    log(
      `${fmt.int(affiliateListData.affiliates)} affiliates; /app/admin/affiliates signed in, timed in the page from the navigation's start to the first row laid out (performance.now())`,
    );
    log(firstRowsTable(firstRows));
  }
  if (audienceEvaluation) {
    log(section('dynamic audiences: full evaluation and trait -> entry'));
    goals.push(...reportAudienceEvaluation(audienceEvaluation, log));
  }

  if (claimListRuns) {
    const { gateway, direct, data } = claimListRuns;
    const ratio = gateway.rps / direct.rps;
    log(section('claim checks: the list of a user with many movements'));
    log(
      `${fmt.int(data.movements)} movements of the user in ${data.checks} claim checks (each batch's check closed into a voucher); GET ${data.path.split('?')[0]}, page 1 of 25`,
    );
    log(lookupTable([gateway, direct]));
    log(
      `throughput ratio gateway / direct: ${fmt.ratio(ratio)} (goal >= ${config.goals.claimListRatioMin}); gateway p99 ${fmt.ms(gateway.p99)} (goal < ${config.goals.claimListP99MaxMs} ms)`,
    );
    logPhasesCpu(cpu, 'request', [
      ['claim list (gateway)', requests(gateway)],
      ['claim list (direct)', requests(direct)],
    ]);
    log("\nthe direct SQL (the repository's page, its count as a window), and its plan:");
    log(claimListRuns.check);
    goals.push(...gatewayGoals('claim list', gateway, direct, config.goals.claimListRatioMin, config.goals.claimListP99MaxMs));
  }

  if (memoryReport) {
    log(section(`memory: peak RSS of the stack (${memoryReport.samples} samples every ${config.memorySampleMs} ms)`));
    log(memoryTable(memoryReport));
  }

  const disturbed = [...cpu].map(([phase, { report, benchOwnSeconds = 0 }]) => {
    const tracked = report.rows.reduce((sum, row) => sum + row.seconds, 0) + benchOwnSeconds;
    return { phase, cores: Math.max(0, report.machineBusy - tracked) / report.wallSeconds };
  });
  log(section('summary'));
  log(
    `other processes on the machine (not this benchmark), in cores: ${disturbed.map((d) => `${d.phase} ${d.cores.toFixed(2)}`).join(', ')}` +
      (disturbed.some((d) => d.cores > 0.25) ? ' -- DISTURBED: another workload shared the CPU; run again on a quiet machine' : ''),
  );
  log(
    table(
      ['goal', 'measured', 'detail', 'result'],
      goals.map(([goal, measured, detail, pass]) => [goal, measured, detail, pass ? 'PASS' : 'MISS']),
    ),
  );
  if (memoryReport) log(`peak RSS of the stack (sum of its processes): ${fmt.mb(memoryReport.peakTotal)}`);
  log(`load average at the end: ${loadAverage()} (${cores} cores); the stack's output is in ${logFile}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  },
);

/** A line of the goals' table: the goal, what was measured, the detail beside it, and whether it was met. */
type Goal = [goal: string, measured: string, detail: string, pass: boolean];

/** The gateway's goals against the direct query: its rate at least `ratioMin` of the direct's, its p99 under `p99MaxMs`, every answer 2xx. */
function gatewayGoals(name: string, gateway: RunFigures, direct: RunFigures, ratioMin: number, p99MaxMs: number): Goal[] {
  const ratio = gateway.rps / direct.rps;
  return [
    [`${name}: gateway / direct >= ${ratioMin}`, fmt.ratio(ratio), `${fmt.int(gateway.rps)} vs ${fmt.int(direct.rps)} req/s`, ratio >= ratioMin],
    [`${name}: gateway p99 < ${p99MaxMs} ms`, fmt.ms(gateway.p99), p99Detail(gateway, direct, p99MaxMs), gateway.p99 < p99MaxMs],
    answeredAll2xx(name, gateway),
  ];
}

/** The gateway's load run answered every request 2xx: none non-2xx, failed or timed out. */
function answeredAll2xx(name: string, gateway: RunFigures): Goal {
  const bad = gateway.non2xx + gateway.errors + gateway.timeouts;
  const detail = `${fmt.int(gateway.ok)} 2xx, ${gateway.non2xx} non-2xx, ${gateway.errors} errors, ${gateway.timeouts} timeouts`;
  return [`${name}: gateway answered 2xx to everything`, `${fmt.int(bad)} bad`, detail, bad === 0 && gateway.ok > 0];
}

/**
 * The detail of a p99 goal: our p50, and the direct query's p99 beside ours. When the direct query,
 * the physical limit, misses the goal too, the machine is too slow for it that day, and the line says so.
 */
function p99Detail(ours: { p50: number; p99: number }, direct: { p99: number }, goalMs: number): string {
  const beside = `p50 ${fmt.ms(ours.p50)}; direct p99 ${fmt.ms(direct.p99)} (${fmt.ratio(ours.p99 / direct.p99)})`;
  return direct.p99 >= goalMs ? `${beside}; the direct query misses it too` : beside;
}

/** Each measured phase's CPU table, per unit of its work (`count` units in the phase: requests, entries, conversions...). */
function logPhasesCpu(cpu: ReadonlyMap<string, PhaseCpu>, unit: string, phases: ReadonlyArray<readonly [phase: string, count: number]>): void {
  for (const [phase, count] of phases) {
    const measured = cpu.get(phase);
    if (!measured) continue;
    log(`\nCPU during ${phase} (${fmt.s(measured.report.wallSeconds)} wall; load average ${measured.loadBefore} -> ${measured.loadAfter})`);
    log(cpuTable(measured.report, { count, unit, scale: 1e6, label: `CPU µs/${unit}` }));
  }
}

/** The requests of a load run that were answered, well or not (a timed-out one used no CPU to the end). */
function requests(run: Pick<RunFigures, 'ok' | 'non2xx' | 'errors'>): number {
  return run.ok + run.non2xx + run.errors;
}
