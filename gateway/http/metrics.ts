import type { Response } from 'express';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { Logger } from '../../services/platform/logger';
import type { SharedReadObserver } from '../../services/platform/shared-reads';
import { matchedRoutePath } from './route';

export interface HttpMetrics {
  registry: Registry;
  /** Records the request this response answers, when it finishes (metrics, and the access log line); called first on every request. */
  track(res: Response): void;
  /** Counts what became of each read of a shared read (services/platform/shared-reads.ts) named `read`. */
  sharedReads(read: string): SharedReadObserver;
}

/** Prometheus metrics labelled by route pattern (never by raw path, which would explode cardinality). */
/** A request this slow is logged at info even when only errors are. */
const SLOW_REQUEST_SECONDS = 1;

export function createHttpMetrics(logger: Logger, accessLog: 'errors' | 'all'): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });

  // The label sets are few (routes x methods x statuses): each one's series is looked up once, not
  // hashed from its labels on every request, and found by its labels one map at a time (no key built per request).
  type Series = { requests: { inc(): void }; duration: { observe(value: number): void } };
  const series = new Map<string, Map<string, Map<number, Series>>>();
  const seriesOf = (method: string, route: string, status: number): Series => {
    let byMethod = series.get(route);
    if (!byMethod) series.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let found = byStatus.get(status);
    if (!found) {
      found = { requests: requests.labels({ method, route, status: String(status) }), duration: duration.labels({ method, route }) };
      byStatus.set(status, found);
    }
    return found;
  };

  // One listener for every response ('finish' comes once; no closure per request): the start travels
  // on the response, as a number of milliseconds (performance.now(); a BigInt from hrtime is one more object per request).
  function recordFinished(this: Response): void {
    const seconds = (performance.now() - (this.locals.requestStartedAt as number)) / 1e3;
    const { method } = this.req;
    const route = matchedRoutePath(this) ?? 'unmatched';
    const status = this.statusCode;
    const { requests: requestCount, duration: requestDuration } = seriesOf(method, route, status);
    requestCount.inc();
    requestDuration.observe(seconds);
    // Every request at info costs more CPU than the lookup itself does; metrics count them all anyway.
    const level = accessLog === 'all' || status >= 400 || seconds >= SLOW_REQUEST_SECONDS ? 'info' : 'debug';
    // The line is built only when it will be written (the level is usually above debug).
    if (logger.isLevelEnabled(level)) logger[level]({ method, route, status, duration_ms: Math.round(seconds * 1e4) / 10 }, 'request');
  }

  const track = (res: Response): void => {
    res.locals.requestStartedAt = performance.now();
    res.on('finish', recordFinished);
  };
  const sharedReads = new Counter({
    name: 'gateway_shared_reads_total',
    help: "Reads of a shared read by outcome: computed (began a service call) or shared (answered by another read's call or snapshot)",
    labelNames: ['read', 'outcome'] as const,
    registers: [registry],
  });
  return {
    registry,
    track,
    sharedReads: (read) => {
      const computed = sharedReads.labels({ read, outcome: 'computed' });
      const shared = sharedReads.labels({ read, outcome: 'shared' });
      return (outcome) => (outcome === 'computed' ? computed : shared).inc();
    },
  };
}
