/**
 * Load at a fixed concurrency for a fixed time, with latency percentiles: through the gateway
 * (autocannon, one path per request) and directly against PostgreSQL (one query per request, as
 * many loops as connections). Every measured endpoint of the benchmark runs through these two.
 */
import http from 'node:http';
import autocannon from 'autocannon';
import { percentile, Samples } from './data';

export interface RunFigures {
  label: string;
  seconds: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

function figures(
  label: string,
  seconds: number,
  counts: { ok: number; non2xx: number; errors: number; timeouts: number },
  latencies: Samples,
): RunFigures {
  const sorted = latencies.sorted();
  return {
    label,
    seconds,
    ...counts,
    rps: (counts.ok + counts.non2xx + counts.errors) / seconds,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** GETs through the gateway at `connections` for `durationS`; `nextPath` gives each request its path. */
export async function runHttpLoad(
  baseUrl: string,
  key: string,
  nextPath: () => string,
  connections: number,
  durationS: number,
  label: string,
): Promise<RunFigures> {
  const latencies = new Samples();
  let ok = 0;
  let non2xx = 0;
  const instance = autocannon({
    url: baseUrl,
    connections,
    duration: durationS,
    headers: { authorization: `Bearer ${key}` },
    requests: [
      {
        method: 'GET',
        setupRequest: (request: Record<string, unknown>) => {
          request.path = nextPath();
          return request;
        },
      },
    ],
  });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
    latencies.push(responseTimeMs);
    if (statusCode >= 200 && statusCode < 300) ok += 1;
    else non2xx += 1;
  });
  const result = await instance;
  // autocannon's errors are connections that failed, not answers: the rate counts answers.
  return {
    ...figures(label, result.duration, { ok, non2xx, errors: result.errors, timeouts: result.timeouts }, latencies),
    rps: (ok + non2xx) / result.duration,
  };
}

/** `query` in `connections` concurrent loops for `durationS` (each loop waits for its answer before the next). */
export async function runQueryLoad(
  query: (n: number) => Promise<unknown>,
  connections: number,
  durationS: number,
  label: string,
): Promise<RunFigures> {
  let next = 0;
  let ok = 0;
  let errors = 0;
  let firstError: string | undefined;
  const latencies = new Samples();
  const started = performance.now();
  const deadline = started + durationS * 1000;
  const loop = async () => {
    while (performance.now() < deadline) {
      const sent = performance.now();
      try {
        await query(next++);
        ok += 1;
      } catch (error) {
        errors += 1;
        firstError ??= (error as Error).message;
      }
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  if (firstError) process.stderr.write(`bench: ${label}: ${errors} failed queries, the first: ${firstError}\n`);
  return figures(label, (performance.now() - started) / 1000, { ok, non2xx: 0, errors, timeouts: 0 }, latencies);
}

/**
 * A GET over kept-alive node:http connections (at most `connections` sockets), answering with the
 * status once the body is read. For loads whose loops wait for each answer: fetch costs the client
 * more CPU per request (about twice, measured), CPU taken from the stack under test on a small machine.
 */
export function keepAliveGet(
  baseUrl: string,
  connections: number,
): { get(path: string, headers: Record<string, string>): Promise<number>; close(): void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const base = new URL(baseUrl);
  return {
    get: (path, headers) =>
      new Promise<number>((resolve, reject) => {
        const request = http.get({ host: base.hostname, port: base.port, path, headers, agent }, (response) => {
          response.on('data', () => undefined);
          response.on('end', () => resolve(response.statusCode ?? 0));
          response.on('error', reject);
        });
        request.on('error', reject);
      }),
    close: () => agent.destroy(),
  };
}

/**
 * Exactly `count` requests (`send(n)` for n = 0 … count − 1, each answering its HTTP status), at most
 * `connections` in flight, each loop waiting for its answer: a fixed piece of work, for writes that
 * must each happen once. Answers the figures and which n were not answered 2xx (for the caller to
 * send again, outside the measurement).
 */
export async function runFixedLoad(
  count: number,
  connections: number,
  label: string,
  send: (n: number) => Promise<number>,
): Promise<RunFigures & { failed: number[] }> {
  let next = 0;
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let firstError: string | undefined;
  const failed: number[] = [];
  const latencies = new Samples();
  const started = performance.now();
  const loop = async () => {
    while (next < count) {
      const n = next++;
      const sent = performance.now();
      try {
        const status = await send(n);
        if (status >= 200 && status < 300) ok += 1;
        else {
          non2xx += 1;
          failed.push(n);
        }
      } catch (error) {
        errors += 1;
        failed.push(n);
        firstError ??= (error as Error).message;
      }
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: Math.min(connections, count) }, loop));
  if (firstError) process.stderr.write(`bench: ${label}: ${errors} failed requests, the first: ${firstError}\n`);
  return { ...figures(label, (performance.now() - started) / 1000, { ok, non2xx, errors, timeouts: 0 }, latencies), failed };
}

/** A JSON POST over kept-alive node:http connections (see keepAliveGet), answering with the status once the body is read. */
export function keepAlivePost(
  baseUrl: string,
  connections: number,
): { post(path: string, headers: Record<string, string>, body: string): Promise<number>; close(): void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const base = new URL(baseUrl);
  return {
    post: (path, headers, body) =>
      new Promise<number>((resolve, reject) => {
        const request = http.request(
          {
            method: 'POST',
            host: base.hostname,
            port: base.port,
            path,
            headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
            agent,
          },
          (response) => {
            response.on('data', () => undefined);
            response.on('end', () => resolve(response.statusCode ?? 0));
            response.on('error', reject);
          },
        );
        request.on('error', reject);
        request.end(body);
      }),
    close: () => agent.destroy(),
  };
}
