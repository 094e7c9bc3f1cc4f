/**
 * Batch ingest: N distinct entries sent through the gateway as batch requests of 10,000 into one
 * segment, timed until every job has completed; then the physical limit, the same rows loaded
 * with COPY into an identical table (same columns, primary key, indexes and foreign key).
 */
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import IORedis from 'ioredis';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { type Api, createProject, createSegment, getSegment } from './api';
import type { BenchConfig } from './config';
import { address, percentile } from './data';

export interface BatchTiming {
  /** Round trip of the POST that queued the batch (202), ms. */
  submitMs: number;
  /** From the job's creation to a worker taking it, ms (BullMQ timestamps). */
  queuedMs: number;
  /** From a worker taking the job to the job finishing, ms. */
  processMs: number;
}

export interface IngestResult {
  entries: number;
  batches: number;
  oursSeconds: number;
  copySeconds: number;
  entriesCount: number;
  rowsInTable: number;
  copyRows: number;
  added: number;
  skipped: number;
  failed: number;
  timings: BatchTiming[];
  /** Last submit answered, seconds after the first request. */
  submittedAfterSeconds: number;
  workerConcurrency: number;
  indexesCompared: { ours: string[]; copy: string[] };
  projectId: string;
  segmentId: string;
}

interface BatchStatus {
  job_id: string;
  status: 'queued' | 'active' | 'completed' | 'failed';
  received: number;
  added: number;
  skipped: number;
}

export function ingestAddresses(count: number): string[] {
  const out = new Array<string>(count);
  for (let i = 0; i < count; i += 1) out[i] = address('ingest', i);
  return out;
}

function batchBodies(addresses: string[], batchSize: number): string[] {
  const bodies: string[] = [];
  for (let start = 0; start < addresses.length; start += batchSize) {
    const entries = addresses.slice(start, start + batchSize).map((identifier) => ({ identifier, identifier_type: 'evm_address' }));
    bodies.push(JSON.stringify({ entries }));
  }
  return bodies;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** Our path: batch requests through the gateway, a few in flight, until every job has completed. */
async function sendThroughGateway(
  api: Api,
  serviceKey: string,
  segmentId: string,
  bodies: string[],
  inflight: number,
): Promise<{ seconds: number; submittedAfterSeconds: number; statuses: BatchStatus[]; submitMs: number[] }> {
  const jobs = bodies.map(() => deferred<string>());
  const submitMs = new Array<number>(bodies.length).fill(0);
  const statuses = new Array<BatchStatus>(bodies.length);
  let next = 0;
  let lastSubmitted = 0;
  const started = performance.now();

  const lane = async () => {
    while (next < bodies.length) {
      const index = next++;
      const sent = performance.now();
      try {
        const { body } = await api.call<BatchStatus>(
          'POST',
          `/v1/audience-segments/${segmentId}/entries/batch`,
          serviceKey,
          bodies[index],
          [202, 200],
        );
        submitMs[index] = performance.now() - sent;
        lastSubmitted = performance.now();
        jobs[index]!.resolve(body.job_id);
      } catch (error) {
        for (const job of jobs) job.reject(error);
        throw error;
      }
    }
  };

  // One waiter walks the jobs in order with ?wait=true (answered as soon as the job settles).
  const waiter = async () => {
    for (let index = 0; index < jobs.length; index += 1) {
      const jobId = await jobs[index]!.promise;
      for (;;) {
        const { body } = await api.call<BatchStatus>('GET', `/v1/audience-segments/${segmentId}/entries/batch/${jobId}?wait=true`, serviceKey);
        if (body.status === 'completed' || body.status === 'failed') {
          statuses[index] = body;
          break;
        }
      }
    }
  };

  await Promise.all([...Array.from({ length: inflight }, lane), waiter()]);
  const finished = performance.now();
  return { seconds: (finished - started) / 1000, submittedAfterSeconds: (lastSubmitted - started) / 1000, statuses, submitMs };
}

/** BullMQ's own timestamps of each job: when it was added, taken by a worker, finished. */
async function jobTimings(redisUrl: string, prefix: string, jobIds: string[]): Promise<{ queuedMs: number; processMs: number }[]> {
  const redis = new IORedis(redisUrl, { maxRetriesPerRequest: 3 });
  try {
    const out: { queuedMs: number; processMs: number }[] = [];
    for (const id of jobIds) {
      const [timestamp, processedOn, finishedOn] = await redis.hmget(
        `${prefix}:audience-apply-entry-batch:${id}`,
        'timestamp',
        'processedOn',
        'finishedOn',
      );
      out.push({
        queuedMs: Number(processedOn) - Number(timestamp),
        processMs: Number(finishedOn) - Number(processedOn),
      });
    }
    return out;
  } finally {
    await redis.quit();
  }
}

async function indexDefinitions(db: pg.Client, schema: string): Promise<string[]> {
  const rows = await db.query<{ def: string }>(
    `SELECT regexp_replace(pg_get_indexdef(i.indexrelid), '^.* USING ', 'USING ') AS def
     FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relname = 'entries' ORDER BY 1`,
    [schema],
  );
  const constraints = await db.query<{ def: string }>(
    `SELECT contype::text || ' ' || regexp_replace(pg_get_constraintdef(co.oid), '[a-z_]+\\.segments', 'segments') AS def
     FROM pg_constraint co JOIN pg_class c ON c.oid = co.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relname = 'entries' ORDER BY 1`,
    [schema],
  );
  return [...rows.rows, ...constraints.rows].map((row) => row.def);
}

interface CopyTarget {
  /** Loads the rows; the only part that is timed. */
  load(): Promise<{ seconds: number; rows: number }>;
  close(): Promise<void>;
}

/**
 * The physical limit: the same rows loaded with COPY into an identical table in a scratch schema,
 * as one COPY stream (BENCH_COPY_STREAMS splits the rows over that many concurrent COPYs). The
 * table and the connections are ready, and a checkpoint done, before the timed load starts.
 */
async function prepareCopy(db: pg.Client, databaseUrl: string, segmentId: string, addresses: string[], streams: number): Promise<CopyTarget> {
  await db.query('DROP SCHEMA IF EXISTS bench_copy CASCADE');
  await db.query('CREATE SCHEMA bench_copy');
  await db.query('CREATE TABLE bench_copy.segments (LIKE audience.segments INCLUDING ALL)');
  await db.query('INSERT INTO bench_copy.segments SELECT * FROM audience.segments WHERE id = $1', [segmentId]);
  await db.query('CREATE TABLE bench_copy.entries (LIKE audience.entries INCLUDING ALL)');
  await db.query('ALTER TABLE bench_copy.entries ADD FOREIGN KEY (segment_id) REFERENCES bench_copy.segments (id) ON DELETE CASCADE');
  const project = await db.query<{ project_id: string }>('SELECT project_id FROM bench_copy.segments');
  const projectId = project.rows[0]!.project_id;
  const clients = Array.from({ length: streams }, () => new pg.Client({ connectionString: databaseUrl, application_name: 'bench-copy' }));
  for (const client of clients) await client.connect();
  await db.query('CHECKPOINT');

  const load = async () => {
    const started = performance.now();
    const addedAt = new Date().toISOString();
    const prefix = `${segmentId}\t${projectId}\tevm_address\t`;
    const suffix = `\tstatic\tapi\t${addedAt}\n`;
    const rowsPerChunk = 5_000;
    function* chunks(stream: number) {
      for (let start = stream * rowsPerChunk; start < addresses.length; start += rowsPerChunk * streams) {
        let text = '';
        const end = Math.min(addresses.length, start + rowsPerChunk);
        for (let i = start; i < end; i += 1) text += prefix + addresses[i] + suffix;
        yield text;
      }
    }
    await Promise.all(
      clients.map((client, stream) =>
        pipeline(
          Readable.from(chunks(stream)),
          client.query(copyFrom('COPY bench_copy.entries (segment_id, project_id, identifier_type, identifier, kind, source, added_at) FROM STDIN')),
        ),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const count = await db.query<{ n: string }>('SELECT count(*) AS n FROM bench_copy.entries');
    return { seconds, rows: Number(count.rows[0]!.n) };
  };
  const close = async () => {
    for (const client of clients) await client.end().catch(() => undefined);
  };
  return { load, close };
}

export async function runIngest(options: {
  api: Api;
  platformKey: string;
  db: pg.Client;
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  config: BenchConfig;
  log: (line: string) => void;
  /** Called around the timed part of our path, e.g. to measure CPU. */
  around?: <T>(phase: string, work: () => Promise<T>) => Promise<T>;
}): Promise<IngestResult> {
  const { api, db, config, log } = options;
  const around = options.around ?? (<T>(_phase: string, work: () => Promise<T>) => work());
  const project = await createProject(api, options.platformKey, 'bench ingest');
  const segment = await createSegment(api, project, 'bench ingest segment');

  log(`ingest: generating ${config.ingest.entries.toLocaleString('en-US')} distinct evm addresses`);
  const addresses = ingestAddresses(config.ingest.entries);
  const bodies = batchBodies(addresses, config.ingest.batchSize);
  await db.query('CHECKPOINT');

  log(
    `ingest: sending ${bodies.length} batch requests of ${config.ingest.batchSize.toLocaleString('en-US')} through the gateway, ${config.ingest.inflight} in flight`,
  );
  const ours = await around('ingest (gateway)', () => sendThroughGateway(api, project.keys.service, segment.id, bodies, config.ingest.inflight));
  const statuses = ours.statuses;
  const entriesCount = Number((await getSegment(api, project, segment.id)).entries_count);
  const rowsInTable = Number(
    (await db.query<{ n: string }>('SELECT count(*) AS n FROM audience.entries WHERE segment_id = $1', [segment.id])).rows[0]!.n,
  );
  const timings = await jobTimings(
    options.redisUrl,
    options.queuePrefix,
    statuses.map((status) => status.job_id),
  );

  const streams = config.ingest.copyStreams;
  log(`ingest: ours took ${ours.seconds.toFixed(2)} s; loading the same rows with COPY (${streams} stream${streams > 1 ? 's' : ''})`);
  const target = await prepareCopy(db, options.databaseUrl, segment.id, addresses, streams);
  let copy: { seconds: number; rows: number };
  try {
    copy = await around('ingest (COPY)', () => target.load());
  } finally {
    await target.close();
  }
  const indexesCompared = { ours: await indexDefinitions(db, 'audience'), copy: await indexDefinitions(db, 'bench_copy') };
  await db.query('DROP SCHEMA bench_copy CASCADE');

  return {
    entries: addresses.length,
    batches: bodies.length,
    oursSeconds: ours.seconds,
    copySeconds: copy.seconds,
    entriesCount,
    rowsInTable,
    copyRows: copy.rows,
    added: statuses.reduce((sum, status) => sum + status.added, 0),
    skipped: statuses.reduce((sum, status) => sum + status.skipped, 0),
    failed: statuses.filter((status) => status.status === 'failed').length,
    timings: timings.map((timing, index) => ({ ...timing, submitMs: ours.submitMs[index]! })),
    submittedAfterSeconds: ours.submittedAfterSeconds,
    workerConcurrency: Number(process.env.BATCH_WORKER_CONCURRENCY ?? 2),
    indexesCompared,
    projectId: project.id,
    segmentId: segment.id,
  };
}

export function summarizeTimings(timings: BatchTiming[]): Record<string, { p50: number; max: number; mean: number; sum: number }> {
  const pick = (key: keyof BatchTiming) => {
    const values = timings.map((timing) => timing[key]).sort((a, b) => a - b);
    const sum = values.reduce((a, b) => a + b, 0);
    return { p50: percentile(values, 50), max: values[values.length - 1] ?? Number.NaN, mean: sum / values.length, sum };
  };
  return { submit: pick('submitMs'), queued: pick('queuedMs'), process: pick('processMs') };
}
