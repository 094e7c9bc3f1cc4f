/**
 * Tracking events (issue 24 §1): N events of the @fuul/sdk's shapes (mostly pageviews, some naming a
 * referrer code, some unsigned connect_wallet, some custom events with a user) sent through
 * POST /api/v1/events in batches (BENCH_EVENTS_BATCH, 1,000) over 50 connections (BENCH_CONNECTIONS),
 * each answered once its events are committed. Beside it the physical limit: COPY of the same rows
 * into a fresh table like tracking_events (its columns, primary key and indexes), one stream.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Api } from './api';
import type { BenchConfig } from './config';
import { keepAlivePost, type RunFigures, runFixedLoad } from './load';
import { fmt } from './report';

export interface EventsResult {
  events: number;
  batches: number;
  batchSize: number;
  connections: number;
  visitors: number;
  ours: RunFigures;
  /** Requests not answered 2xx in the measured run, sent again afterwards. */
  resent: number;
  /** Events of the project in tracking_events afterwards, and batch rows. */
  stored: number;
  storedBatches: number;
  copySeconds: number;
  copyRows: number;
  /** What the processing job made of the stored events, and what it should have made. */
  processing: ProcessingCheck;
}

export interface ProcessingCheck {
  /** From the end of the measured run until every batch (the signed connect_wallets included) was processed. */
  seconds: number;
  clicks: number;
  /** Distinct (code, tracking id, UTC day) of the stored pageviews naming a code, as the rule counts clicks. */
  expectedClicks: number;
  /** Wallets referred through the signed connect_wallets sent after the run (fresh wallets of visitors with a click). */
  referred: number;
  expectedReferred: number;
  /** Batches left unprocessed when the wait ended (0 unless it timed out). */
  unprocessed: number;
}

/** Signed connect_wallets sent after the run, one per visitor with a click (each signs with a fresh key). */
const SIGNED_VISITORS = 500;
const CONNECT_MESSAGE = 'Connect wallet';
/** The longest wait for the processing job to catch up. */
const PROCESSING_TIMEOUT_MS = 900_000;

const CODES = Array.from({ length: 10 }, (_, i) => `bench_code_${i}`);
const ORIGIN = 'https://app.example.com';

/** A wallet per visitor (0x + 40 hex digits, lowercase: as stored). */
const walletOf = (visitor: number) => `0x${visitor.toString(16).padStart(40, '0')}`;

/** The n-th event, as the SDK would send it: 80% pageviews (one in ten naming a code), 10% connect_wallet without signature, 10% custom trades. */
function eventOf(n: number, visitors: number): Record<string, unknown> {
  const visitor = (n * 7919) % visitors;
  const tracking_id = `bench-visitor-${visitor}`;
  const kind = n % 10;
  if (kind === 8) {
    return {
      name: 'connect_wallet',
      user: { identifier: walletOf(visitor), identifier_type: 'evm_address' },
      args: { page: '/connect', locationOrigin: ORIGIN },
      metadata: { tracking_id },
    };
  }
  if (kind === 9) {
    return {
      name: 'trade',
      user: { identifier: walletOf(visitor), identifier_type: 'evm_address' },
      args: { amount: String(n % 1_000), pair: 'ETH/USDC' },
      metadata: { tracking_id },
    };
  }
  const code = n % 50 === 0 ? CODES[n % CODES.length] : undefined;
  return {
    name: 'pageview',
    args: { page: `/page/${n % 40}`, locationOrigin: ORIGIN },
    metadata: { tracking_id, referrer_url: '', ...(code ? { affiliate_id: code, referrer: code } : {}) },
  };
}

/** COPY's text format: backslash, tab, newline and carriage return escaped; null as \N. */
const copyText = (value: string | null) =>
  value === null ? '\\N' : value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');

/** The row the agency stores for an event, in COPY text (the columns of COPY_COLUMNS). */
function copyRow(event: Record<string, unknown>, projectId: string, batchId: string, receivedAt: string): string {
  const user = event.user as { identifier: string; identifier_type: string } | undefined;
  const metadata = event.metadata as { referrer?: string };
  return (
    [
      randomUUID(),
      projectId,
      batchId,
      receivedAt,
      event.name as string,
      (event.metadata as { tracking_id: string }).tracking_id,
      user?.identifier_type ?? null,
      user?.identifier ?? null,
      'f',
      metadata.referrer ?? null,
      null,
      JSON.stringify(event.args ?? {}),
      JSON.stringify(event.metadata),
    ]
      .map(copyText)
      .join('\t') + '\n'
  );
}

const COPY_COLUMNS =
  'id, project_id, batch_id, received_at, name, tracking_id, identifier_type, identifier, signature_verified, referrer, dedup_id, args, metadata';

export async function runEvents(options: {
  api: Api;
  platformKey: string;
  db: pg.Client;
  databaseUrl: string;
  config: BenchConfig;
  log: (line: string) => void;
  around: <T>(phase: string, work: () => Promise<T>) => Promise<T>;
}): Promise<EventsResult> {
  const { api, db, config, log } = options;
  const { events: total, batchSize, connections, visitors } = config.events;
  const { body: created } = await api.call<{ id: string; api_keys: { role: string; key: string }[] }>(
    'POST',
    '/api/v1/projects',
    options.platformKey,
    {
      name: 'bench events',
    },
  );
  const key = created.api_keys.find((candidate) => candidate.role === 'send:tracking_event')?.key;
  const adminKey = created.api_keys.find((candidate) => candidate.role === 'admin')?.key;
  if (!key || !adminKey) throw new Error('project creation returned no send:tracking_event or admin key');
  const projectId = created.id;
  // The codes the pageviews name belong to affiliates, so that their clicks count.
  for (const [i, code] of CODES.entries()) {
    await api.call('POST', `/api/v1/projects/${projectId}/affiliates`, adminKey, {
      identifier: `0x${'af'.repeat(19)}${i.toString(16).padStart(2, '0')}`,
      identifier_type: 'evm_address',
      name: `Bench affiliate ${i}`,
      code,
    });
  }

  // The bodies are made before the run: the load generator only sends them.
  const batches = Math.ceil(total / batchSize);
  const bodies = Array.from({ length: batches }, (_, b) => {
    const events = [];
    for (let n = b * batchSize; n < Math.min(total, (b + 1) * batchSize); n += 1) events.push(eventOf(n, visitors));
    return JSON.stringify({ events });
  });

  log(
    `events: ${fmt.int(total)} events of ${fmt.int(visitors)} visitors, ${fmt.int(batches)} x POST /api/v1/events of ${batchSize}, ${connections} in flight`,
  );
  const client = keepAlivePost(api.baseUrl, connections);
  const headers = { authorization: `Bearer ${key}` };
  let ours: RunFigures & { failed: number[] };
  let resent = 0;
  try {
    ours = await options.around('events (gateway)', () =>
      runFixedLoad(batches, connections, 'ours: POST /api/v1/events (HTTP -> gRPC -> one statement)', (b) =>
        client.post('/api/v1/events', headers, bodies[b]!),
      ),
    );
    // A request that failed (a 504 on a loaded machine) is sent again; events without dedup ids would be stored twice
    // if the first attempt had been committed, which the count below would show.
    for (const b of ours.failed) {
      for (let attempt = 1; ; attempt += 1) {
        const status = await client.post('/api/v1/events', headers, bodies[b]!);
        if (status === 202) break;
        if (attempt >= 3) throw new Error(`events batch ${b} answered ${status} three times after the run`);
      }
      resent += 1;
    }
  } finally {
    client.close();
  }
  const runEnded = performance.now();
  const counts = await db.query<{ events: number; batches: number }>(
    `SELECT (SELECT count(*)::int FROM agency.tracking_events WHERE project_id = $1) AS events,
            (SELECT count(*)::int FROM agency.tracking_event_batches WHERE project_id = $1) AS batches`,
    [projectId],
  );

  // The physical limit: the same rows, COPY into a fresh table like tracking_events (not partitioned: the cheapest target).
  await db.query('DROP TABLE IF EXISTS agency.bench_tracking_events');
  await db.query('CREATE TABLE agency.bench_tracking_events (LIKE agency.tracking_events INCLUDING ALL)');
  const copier = new pg.Client({ connectionString: options.databaseUrl, application_name: 'bench-copy' });
  await copier.connect();
  await db.query('CHECKPOINT');
  let copy: { seconds: number; rows: number };
  try {
    // The rows are made before the clock starts, as our side's bodies are.
    const receivedAt = new Date().toISOString();
    const chunks: string[] = [];
    for (let b = 0; b < batches; b += 1) {
      const batchId = randomUUID();
      let text = '';
      for (let n = b * batchSize; n < Math.min(total, (b + 1) * batchSize); n += 1)
        text += copyRow(eventOf(n, visitors), projectId, batchId, receivedAt);
      chunks.push(text);
    }
    copy = await options.around('events (COPY)', async () => {
      const started = performance.now();
      await pipeline(Readable.from(chunks), copier.query(copyFrom(`COPY agency.bench_tracking_events (${COPY_COLUMNS}) FROM STDIN`)));
      const seconds = (performance.now() - started) / 1000;
      const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM agency.bench_tracking_events');
      return { seconds, rows: count.rows[0]!.n };
    });
  } finally {
    await copier.end().catch(() => undefined);
    await db.query('DROP TABLE IF EXISTS agency.bench_tracking_events');
  }

  const processing = await checkProcessing({ api, db, key, projectId, log, runEnded });

  return {
    processing,
    events: total,
    batches,
    batchSize,
    connections,
    visitors,
    ours,
    resent,
    stored: counts.rows[0]!.events,
    storedBatches: counts.rows[0]!.batches,
    copySeconds: copy.seconds,
    copyRows: copy.rows,
  };
}

/**
 * The processing job's work, checked exactly once it caught up: clicks as the rule counts them from
 * the stored pageviews, and a referral for each signed connect_wallet sent after the run by a fresh
 * wallet on the tracking id of a visitor with a click (the first click within the window refers it).
 */
async function checkProcessing(options: {
  api: Api;
  db: pg.Client;
  key: string;
  projectId: string;
  log: (line: string) => void;
  runEnded: number;
}): Promise<ProcessingCheck> {
  const { db, projectId } = options;
  const { privateKeyToAccount, generatePrivateKey } = await import('viem/accounts');
  const clicked = await db.query<{ tracking_id: string }>(
    `SELECT DISTINCT tracking_id FROM agency.tracking_events
     WHERE project_id = $1 AND name = 'pageview' AND referrer IS NOT NULL ORDER BY tracking_id LIMIT $2`,
    [projectId, SIGNED_VISITORS],
  );
  const events = [];
  for (const { tracking_id } of clicked.rows) {
    const account = privateKeyToAccount(generatePrivateKey());
    events.push({
      name: 'connect_wallet',
      user: { identifier: account.address, identifier_type: 'evm_address' },
      signature: await account.signMessage({ message: CONNECT_MESSAGE }),
      signature_message: CONNECT_MESSAGE,
      args: { page: '/connect', locationOrigin: ORIGIN },
      metadata: { tracking_id },
    });
  }
  // After every pageview was stored: each connect_wallet finds its visitor's click, whatever order the batches run in.
  for (let i = 0; i < events.length; i += 100) {
    const response = await options.api.call('POST', '/api/v1/events', options.key, { events: events.slice(i, i + 100) });
    if (response.status !== 202) throw new Error(`signed connect_wallets answered ${response.status}`);
  }
  options.log(`events: ${events.length} signed connect_wallets sent; waiting for the processing job`);
  const deadline = Date.now() + PROCESSING_TIMEOUT_MS;
  let unprocessed = Number.POSITIVE_INFINITY;
  while (Date.now() < deadline) {
    const pending = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM agency.tracking_event_batches WHERE project_id = $1 AND processed_at IS NULL',
      [projectId],
    );
    unprocessed = pending.rows[0]!.n;
    if (unprocessed === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const seconds = (performance.now() - options.runEnded) / 1000;
  const figures = await db.query<{ clicks: number; expected_clicks: number; referred: number }>(
    `SELECT (SELECT count(*)::int FROM agency.code_clicks WHERE project_id = $1) AS clicks,
       (SELECT count(*)::int FROM (
          SELECT DISTINCT lower(referrer), tracking_id, (received_at AT TIME ZONE 'UTC')::date
          FROM agency.tracking_events WHERE project_id = $1 AND name = 'pageview' AND referrer IS NOT NULL) AS c) AS expected_clicks,
       (SELECT count(*)::int FROM agency.tracking_event_outcomes WHERE project_id = $1 AND outcome = 'referred') AS referred`,
    [projectId],
  );
  const row = figures.rows[0]!;
  return {
    seconds,
    clicks: row.clicks,
    expectedClicks: row.expected_clicks,
    referred: row.referred,
    expectedReferred: events.length,
    unprocessed,
  };
}
