/**
 * Issue 25 §6: every leaderboard through the gateway against the statement its repository sends,
 * sent directly with pg at the same concurrency. A board's benchmark (BoardBench) names its phase, the
 * request paths of the load and, for each, the repository's statement (repository-statement.ts); the
 * load, the cross-check and the plans are the same for every board.
 */
import pg from 'pg';
import type { Api } from './api';
import { random } from './data';
import { runHttpLoad, runQueryLoad, type RunFigures } from './load';
import type { RecordedStatement } from './repository-statement';

type Row = Record<string, unknown>;

export interface BoardBench {
  /** Its BENCH_PHASES name. */
  phase: string;
  /** The report's section title: the route asked. */
  title: string;
  /** What the board holds and how the load asks for it (one line of the report). */
  describe: string;
  /** The read-only key the requests carry. */
  key: string;
  /** The schema the service reads (its connections' search_path). */
  schema: 'claim' | 'agency';
  /** Request n's path (the load cycles through a fixed list of requests, the direct statement through the same). */
  path(n: number): string;
  /** The statement the repository sends for request n. */
  statement(n: number): RecordedStatement;
  /** The answer to request n through the gateway and the direct statement's rows, as comparable text. */
  fromGateway(body: unknown): string;
  fromSql(rows: Row[], n: number): string;
  /** The requests compared (the first pages, the last) and whose plans the report prints. */
  checked: number[];
  /** The all-time payouts board has a p99 goal (issue 9); the others report it beside the direct query's (issue 25 §6). */
  p99Goal: boolean;
}

/**
 * Page numbers for a load over a board of `entries`: most readers look at the top of a board, some page deep into it
 * (`topShare` of requests on the first ten pages). The first three are the first page, the second and the last: the
 * requests a board's cross-check compares (PAGE_MIX_CHECKED).
 */
export function pageMix(entries: number, pageSize: number, topShare: number, seed: number, length = 100_000): number[] {
  const lastPage = Math.max(1, Math.ceil(entries / pageSize));
  const mix = random(seed);
  const drawn = Array.from({ length }, () => (mix() < topShare ? 1 + Math.floor(mix() * Math.min(10, lastPage)) : 1 + Math.floor(mix() * lastPage)));
  return [1, Math.min(2, lastPage), lastPage, ...drawn];
}

/** The requests of a pageMix that a cross-check compares: its first page, its second and its last. */
export const PAGE_MIX_CHECKED = [0, 1, 2];

/** Request n's page from `pages`, and each distinct page's statement recorded once (before the load: none of it measured). */
export async function statementsByPage(
  pages: number[],
  record: (page: number) => Promise<RecordedStatement>,
): Promise<(n: number) => RecordedStatement> {
  const byPage = new Map<number, RecordedStatement>();
  for (const page of new Set(pages)) byPage.set(page, await record(page));
  return (n) => byPage.get(pages[n % pages.length]!)!;
}

export interface DirectBoard {
  rows(n: number): Promise<Row[]>;
  explain(n: number): Promise<string>;
  close(): Promise<void>;
}

/** A pool of `connections` sending the repository's statements as the service sends them (unnamed, with their parameters). */
export function openDirectBoard(databaseUrl: string, bench: BoardBench, connections: number): DirectBoard {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: connections,
    application_name: 'bench-direct',
    options: `-c search_path=${bench.schema}`,
  });
  return {
    rows: async (n) => {
      const { sql, parameters } = bench.statement(n);
      return (await pool.query<Row>(sql, [...parameters])).rows;
    },
    explain: async (n) => {
      const { sql, parameters } = bench.statement(n);
      return (await pool.query<Row>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, [...parameters])).rows.map((row) => String(row['QUERY PLAN'])).join('\n');
    },
    close: () => pool.end(),
  };
}

/** The gateway's answers to the checked requests agree with the direct statement's rows. */
export async function crossCheckBoard(api: Api, bench: BoardBench, direct: DirectBoard): Promise<string> {
  for (const n of bench.checked) {
    const { body } = await api.call('GET', bench.path(n), bench.key);
    const viaGateway = bench.fromGateway(body);
    const viaSql = bench.fromSql(await direct.rows(n), n);
    if (viaGateway !== viaSql) {
      throw new Error(
        `${bench.phase}: ${bench.path(n)}: the gateway and the direct statement disagree\n  gateway ${viaGateway.slice(0, 300)}\n  sql     ${viaSql.slice(0, 300)}`,
      );
    }
    if (viaGateway === '') throw new Error(`${bench.phase}: ${bench.path(n)}: an empty answer checks nothing`);
  }
  return `${bench.checked.length} requests agree (${bench.checked
    .map((n) => bench.path(n).replace(/^[^?]*\?/, ''))
    .join('; ')
    .slice(0, 400)})`;
}

export function runBoardGateway(baseUrl: string, bench: BoardBench, connections: number, durationS: number, label: string): Promise<RunFigures> {
  let next = 0;
  return runHttpLoad(baseUrl, bench.key, () => bench.path(next++), connections, durationS, label);
}

export function runBoardDirect(direct: DirectBoard, connections: number, durationS: number, label: string): Promise<RunFigures> {
  return runQueryLoad((n) => direct.rows(n), connections, durationS, label);
}
