/**
 * Issue 11, section 3: dynamic audiences. A condition over 1,000,000 users (scaled) with metrics and
 * traits, evaluated in full by the stack (POST of the audience -> the worker's one statement ->
 * evaluation completed), beside one hand-written INSERT ... SELECT producing the same rows into an
 * identical table; and the time from a trait pushed through the API to the user's entry appearing.
 */
import pg from 'pg';
import { type Api, createProject } from './api';
import { fmt, keyValues, table } from './report';

export interface AudienceEvaluationResult {
  users: number;
  matched: number;
  /** POST of the audience until GET .../evaluation says completed (queue, statement, commit, polling). */
  oursSeconds: number;
  /** The evaluation's own started_at -> finished_at (the worker's transaction). */
  statementSeconds: number;
  directSeconds: number;
  check: string;
  /** Trait pushed (POST /v1/user-traits/batch answered) until the user's entry exists, ms, sorted. */
  traitToEntryMs: number[];
}

const CONDITION = {
  all: [
    { metric: 'volume_usd', op: 'gte', value: '100' },
    {
      any: [
        { metric: 'trait:country', op: 'in', value: ['US', 'DE'] },
        { metric: 'trait:token_balance', op: 'gt', value: 5000 },
      ],
    },
  ],
};

const POLL_MS = 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runAudienceEvaluation(options: {
  api: Api;
  platformKey: string;
  db: pg.Client;
  scale: number;
  samples: number;
  log: (line: string) => void;
}): Promise<AudienceEvaluationResult> {
  const { api, db, log } = options;
  const users = Math.max(10_000, Math.round(1_000_000 * options.scale));
  const project = await createProject(api, options.platformKey, 'bench dynamic audiences');
  log(`audience evaluation: seeding ${fmt.int(users)} users with metrics and two traits each (INSERT ... SELECT generate_series, not measured)`);
  // Volumes spread from 0 to ~1,000 USD; countries over five values; balances 0 to 10,000.
  await db.query(
    `INSERT INTO audience.user_metrics (project_id, identifier_type, identifier, volume_usd, revenue_usd, conversions, updated_at)
     SELECT $1, 'evm_address', '0x' || lpad(to_hex(g), 40, '0'), round(((hashtext('v' || g) & 1048575)::numeric) / 1000, 2), 0, 1 + (g % 7), now()
     FROM generate_series(1, $2::int) g`,
    [project.id, users],
  );
  await db.query(
    `INSERT INTO audience.user_traits (project_id, identifier_type, identifier, name, value, updated_at)
     SELECT $1, 'evm_address', '0x' || lpad(to_hex(g), 40, '0'), 'country', to_jsonb((ARRAY['US','DE','FR','BR','JP'])[1 + (hashtext('c' || g) & 1023) % 5]), now()
     FROM generate_series(1, $2::int) g`,
    [project.id, users],
  );
  await db.query(
    `INSERT INTO audience.user_traits (project_id, identifier_type, identifier, name, value, updated_at)
     SELECT $1, 'evm_address', '0x' || lpad(to_hex(g), 40, '0'), 'token_balance', to_jsonb((hashtext('b' || g) & 16383) % 10001), now()
     FROM generate_series(1, $2::int) g`,
    [project.id, users],
  );
  await db.query('ANALYZE audience.user_metrics');
  await db.query('ANALYZE audience.user_traits');
  await db.query('CHECKPOINT');

  log('audience evaluation: ours (POST the audience; the worker evaluates it in one statement)');
  const oursStart = process.hrtime.bigint();
  const { body: segment } = await api.call<{ id: string }>('POST', `/api/v1/projects/${project.id}/audiences`, project.keys.admin, {
    name: 'Bench whales',
    condition: CONDITION,
  });
  let evaluation: { status: string; started_at: string; finished_at: string; matched: number } | undefined;
  for (;;) {
    const { body } = await api.call('GET', `/api/v1/projects/${project.id}/audiences/${segment.id}/evaluation`, project.keys.admin);
    if (body.status === 'completed') {
      evaluation = body;
      break;
    }
    if (body.status === 'failed') throw new Error('the bench evaluation failed');
    await sleep(POLL_MS);
  }
  const oursSeconds = Number(process.hrtime.bigint() - oursStart) / 1e9;
  const statementSeconds = (Date.parse(evaluation!.finished_at) - Date.parse(evaluation!.started_at)) / 1000;

  log('audience evaluation: direct (one hand-written INSERT ... SELECT into an identical empty table)');
  await db.query('DROP TABLE IF EXISTS audience.bench_entries');
  await db.query('CREATE TABLE audience.bench_entries (LIKE audience.entries INCLUDING ALL)');
  await db.query('CHECKPOINT');
  const directStart = process.hrtime.bigint();
  await db.query(
    `INSERT INTO audience.bench_entries (segment_id, project_id, identifier_type, identifier, kind, source, added_at)
     SELECT $2::uuid, m.project_id, m.identifier_type, m.identifier, 'dynamic', 'condition', now()
     FROM audience.user_metrics m
     LEFT JOIN audience.user_traits c ON c.project_id = m.project_id AND c.identifier_type = m.identifier_type AND c.identifier = m.identifier AND c.name = 'country'
     LEFT JOIN audience.user_traits b ON b.project_id = m.project_id AND b.identifier_type = m.identifier_type AND b.identifier = m.identifier AND b.name = 'token_balance'
     WHERE m.project_id = $1 AND m.volume_usd >= 100
       AND (c.value IN ('"US"'::jsonb, '"DE"'::jsonb) OR (jsonb_typeof(b.value) = 'number' AND (b.value)::numeric > 5000))`,
    [project.id, segment.id],
  );
  const directSeconds = Number(process.hrtime.bigint() - directStart) / 1e9;

  const difference = await db.query<{ ours_only: string; direct_only: string; direct: string }>(
    `SELECT (SELECT count(*) FROM (SELECT identifier_type, identifier FROM audience.entries WHERE segment_id = $1
                                   EXCEPT SELECT identifier_type, identifier FROM audience.bench_entries) d) AS ours_only,
            (SELECT count(*) FROM (SELECT identifier_type, identifier FROM audience.bench_entries
                                   EXCEPT SELECT identifier_type, identifier FROM audience.entries WHERE segment_id = $1) d) AS direct_only,
            (SELECT count(*) FROM audience.bench_entries) AS direct`,
    [segment.id],
  );
  const row = difference.rows[0]!;
  const same = row.ours_only === '0' && row.direct_only === '0' && Number(row.direct) === evaluation!.matched;
  const check = same
    ? `the same ${fmt.int(evaluation!.matched)} users both ways`
    : `MISMATCH: ${row.ours_only} only ours, ${row.direct_only} only direct (ours matched ${evaluation!.matched}, direct ${row.direct})`;
  await db.query('DROP TABLE audience.bench_entries');

  log(`audience evaluation: trait -> entry latency, ${options.samples} users one after another`);
  const { body: flagged } = await api.call<{ id: string }>('POST', `/api/v1/projects/${project.id}/audiences`, project.keys.admin, {
    name: 'Bench flagged',
    condition: { metric: 'trait:flag', op: 'eq', value: true },
  });
  const traitToEntryMs: number[] = [];
  for (let i = 0; i < options.samples; i += 1) {
    const identifier = `0x${(users + 1 + i).toString(16).padStart(40, '0')}`;
    const start = process.hrtime.bigint();
    await api.call('POST', '/v1/user-traits/batch', project.keys.service, {
      traits: [{ identifier, identifier_type: 'evm_address', name: 'flag', value: true }],
    });
    for (;;) {
      const found = await db.query('SELECT 1 FROM audience.entries WHERE segment_id = $1 AND identifier_type = $2 AND identifier = $3', [
        flagged.id,
        'evm_address',
        identifier,
      ]);
      if (found.rowCount) break;
      if (Number(process.hrtime.bigint() - start) / 1e6 > 30_000) throw new Error(`the entry of ${identifier} did not appear within 30 s`);
      await sleep(POLL_MS);
    }
    traitToEntryMs.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  traitToEntryMs.sort((a, b) => a - b);
  return { users, matched: evaluation!.matched, oursSeconds, statementSeconds, directSeconds, check, traitToEntryMs };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

/** The section of the report; returns the goals' rows [goal, figure, detail, met]. */
export function reportAudienceEvaluation(result: AudienceEvaluationResult, log: (line: string) => void): Array<[string, string, string, boolean]> {
  const ratio = result.statementSeconds / result.directSeconds;
  const wallRatio = result.oursSeconds / result.directSeconds;
  const p99 = percentile(result.traitToEntryMs, 99);
  log(
    keyValues([
      ['users', `${fmt.int(result.users)} with metrics and two traits; condition ${JSON.stringify(CONDITION)}`],
      ['matched', fmt.int(result.matched)],
      ['cross-check', result.check],
    ]),
  );
  log(
    table(
      ['path', 'time', 'vs direct'],
      [
        ['ours: the evaluation (started_at -> finished_at: lock, statement with events, commit)', fmt.s(result.statementSeconds), fmt.ratio(ratio)],
        ['ours: wall, POST of the audience -> GET .../evaluation completed', fmt.s(result.oursSeconds), fmt.ratio(wallRatio)],
        ['direct: one hand-written INSERT ... SELECT (no events, no count)', fmt.s(result.directSeconds), fmt.ratio(1)],
      ],
    ),
  );
  const lat = result.traitToEntryMs;
  log(
    `trait -> entry (${lat.length} samples, one at a time; includes the ${'MATCHING_DEBOUNCE_MS'} debounce): p50 ${fmt.ms(percentile(lat, 50))}, p90 ${fmt.ms(percentile(lat, 90))}, p99 ${fmt.ms(p99)}, max ${fmt.ms(lat[lat.length - 1] ?? NaN)}`,
  );
  return [
    [
      'dynamic audience: full evaluation / hand-written INSERT ... SELECT <= 2x',
      fmt.ratio(ratio),
      `${fmt.s(result.statementSeconds)} vs ${fmt.s(result.directSeconds)} (wall ${fmt.ratio(wallRatio)})`,
      ratio <= 2,
    ],
    [
      'dynamic audience: same rows as the hand-written statement',
      result.check.startsWith('MISMATCH') ? 'no' : 'yes',
      result.check,
      !result.check.startsWith('MISMATCH'),
    ],
    ['dynamic audience: trait -> entry p99 < 2 s', fmt.ms(p99), `p50 ${fmt.ms(percentile(lat, 50))}`, p99 < 2_000],
  ];
}
